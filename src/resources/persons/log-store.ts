import type { Kysely, Selectable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { PersonLogSource, PersonLogsTable, PersonsTables } from './tables.ts';

export type PersonLogRow = Omit<Selectable<PersonLogsTable>, 'tenant_id'>;

const COLUMNS = ['id', 'person_id', 'kind', 'source', 'text', 'created_at', 'updated_at'] as const;

export async function insertLog(db: TenantDb<PersonsTables>, row: PersonLogRow): Promise<void> {
  await db.insertInto('person_logs', row).execute();
}

export function findLog(
  db: TenantDb<PersonsTables>,
  personId: string,
  id: string,
): Promise<PersonLogRow | undefined> {
  return db
    .selectFrom('person_logs')
    .select(COLUMNS)
    .where('person_id', '=', personId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function setLogText(
  db: TenantDb<PersonsTables>,
  id: string,
  text: string,
  at: number,
): Promise<void> {
  await db.updateTable('person_logs').set({ text, updated_at: at }).where('id', '=', id).execute();
}

export async function listLogs(
  db: TenantDb<PersonsTables>,
  personId: string,
  page: Paging,
): Promise<Paged<PersonLogRow>> {
  const matching = db.selectFrom('person_logs').where('person_id', '=', personId);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

/** The person's latest entries written by `sources`, newest first. */
export function latestLogs(
  db: TenantDb<PersonsTables>,
  personId: string,
  sources: PersonLogSource[],
  limit: number,
): Promise<PersonLogRow[]> {
  return db
    .selectFrom('person_logs')
    .select(COLUMNS)
    .where('person_id', '=', personId)
    .where('source', 'in', sources)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Deletes, across tenants, the entries that visitors wrote before `before`; answers how many. */
export async function deleteVisitorLogsBefore(db: Kysely<PersonsTables>, before: number): Promise<number> {
  const result = await db
    .deleteFrom('person_logs')
    .where('source', '=', 'visitor')
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
