import type { Selectable } from 'kysely';
import { descendingAfter, type Page, type PageRequest, pageOf } from '../../db/paging.ts';
import type { PersonLogsTable } from '../../db/schema.ts';
import type { TenantDb } from '../../db/tenant-db.ts';

export type PersonLogRow = Omit<Selectable<PersonLogsTable>, 'tenant_id'>;

const COLUMNS = ['id', 'person_id', 'kind', 'text', 'created_at', 'updated_at'] as const;

export async function insertLog(db: TenantDb, row: PersonLogRow): Promise<void> {
  await db.insertInto('person_logs', row).execute();
}

export function findLog(db: TenantDb, personId: string, id: string): Promise<PersonLogRow | undefined> {
  return db
    .selectFrom('person_logs')
    .select(COLUMNS)
    .where('person_id', '=', personId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function setLogText(db: TenantDb, id: string, text: string, at: number): Promise<void> {
  await db.updateTable('person_logs').set({ text, updated_at: at }).where('id', '=', id).execute();
}

export async function listLogs(
  db: TenantDb,
  personId: string,
  page: PageRequest,
): Promise<Page<PersonLogRow>> {
  const matching = db.selectFrom('person_logs').where('person_id', '=', personId);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pageOf(rows, page, (row) => [row.id], total);
}
