import type { Kysely } from 'kysely';
import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { toTimestamp } from '../../shared/time.ts';
import {
  deleteVisitorLogsBefore,
  findLog,
  insertLog,
  latestLogs,
  listLogs,
  type PersonLogRow,
  setLogText,
} from './log-store.ts';
import type { PersonLog } from './schema.ts';
import { assertPersonExists, notePersonActivity } from './service.ts';
import type { PersonLogSource, PersonsTables } from './tables.ts';

function present(row: PersonLogRow): PersonLog {
  return {
    personLogId: row.id,
    personId: row.person_id,
    kind: row.kind,
    source: row.source,
    text: row.text,
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
  };
}

async function writeLog(
  db: TenantDb,
  personId: string,
  { kind, source }: Pick<PersonLogRow, 'kind' | 'source'>,
  text: string,
): Promise<PersonLog> {
  await assertPersonExists(db, personId);
  const now = Date.now();
  const row: PersonLogRow = {
    id: newId('personlog'),
    person_id: personId,
    kind,
    source,
    text,
    created_at: now,
    updated_at: now,
  };
  await db.transaction(async (tx) => {
    await insertLog(tx, row);
    await notePersonActivity(tx, personId, now);
  });
  return present(row);
}

/** A note written by a user. */
export function addNote(db: TenantDb, personId: string, text: string): Promise<PersonLog> {
  return writeLog(db, personId, { kind: 'note', source: 'user' }, text);
}

/**
 * An entry Tailor writes about something the person did: in its own words (`service`), or holding
 * what a visitor wrote (`visitor`: a form's fields), which never guides generation.
 */
export function addActivity(
  db: TenantDb,
  personId: string,
  text: string,
  source: Exclude<PersonLogSource, 'user'>,
): Promise<PersonLog> {
  return writeLog(db, personId, { kind: 'activity', source }, text);
}

export async function listPersonLogs(
  db: TenantDb,
  personId: string,
  page: Paging,
): Promise<Paged<PersonLog>> {
  await assertPersonExists(db, personId);
  return mapPaged(await listLogs(db, personId, page), present);
}

/** Replaces a note's text; Tailor's own activity entries cannot be edited. */
export async function editNote(
  db: TenantDb,
  personId: string,
  logId: string,
  text: string,
): Promise<{ success: true }> {
  const row = await findLog(db, personId, logId);
  if (!row) throw notFound(`Log entry ${logId} of person ${personId}`);
  if (row.kind !== 'note')
    throw invalidState(`Log entry ${logId} is an activity entry written by Tailor; only notes can be edited`);
  await setLogText(db, logId, text, Date.now());
  return { success: true };
}

/** Who may guide generation: the tenant's users and Tailor. A visitor's words are not instructions. */
const GUIDING_SOURCES: PersonLogSource[] = ['user', 'service'];

/**
 * The texts of the person's latest log entries that guide generation (never page copy), newest
 * first: notes and Tailor's own entries, never what a visitor wrote.
 */
export async function guidanceLogTexts(db: TenantDb, personId: string, limit: number): Promise<string[]> {
  return (await latestLogs(db, personId, GUIDING_SOURCES, limit)).map((row) => row.text);
}

/** Deletes, across tenants, the log entries that visitors wrote before `before`; answers how many. */
export function deleteVisitorEntriesBefore(db: Kysely<PersonsTables>, before: number): Promise<number> {
  return deleteVisitorLogsBefore(db, before);
}
