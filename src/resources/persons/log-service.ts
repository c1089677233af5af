import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { toTimestamp } from '../../shared/time.ts';
import { findLog, insertLog, latestLogs, listLogs, type PersonLogRow, setLogText } from './log-store.ts';
import type { PersonLog } from './schema.ts';
import { assertPersonExists, notePersonActivity } from './service.ts';

function present(row: PersonLogRow): PersonLog {
  return {
    personLogId: row.id,
    personId: row.person_id,
    kind: row.kind,
    text: row.text,
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
  };
}

async function writeLog(
  db: TenantDb,
  personId: string,
  kind: PersonLogRow['kind'],
  text: string,
): Promise<PersonLog> {
  await assertPersonExists(db, personId);
  const now = Date.now();
  const row: PersonLogRow = {
    id: newId('personlog'),
    person_id: personId,
    kind,
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
  return writeLog(db, personId, 'note', text);
}

/** An entry Tailor writes itself about something the person did (a form submission, enrichment). */
export function addActivity(db: TenantDb, personId: string, text: string): Promise<PersonLog> {
  return writeLog(db, personId, 'activity', text);
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

/** The texts of the person's latest log entries, newest first: guidance for generation, never page copy. */
export async function latestLogTexts(db: TenantDb, personId: string, limit: number): Promise<string[]> {
  return (await latestLogs(db, personId, limit)).map((row) => row.text);
}
