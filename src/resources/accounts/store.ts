import type { Insertable, Selectable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { AccountsTable, AccountsTables } from './tables.ts';

export type AccountRow = Omit<Selectable<AccountsTable>, 'tenant_id'>;
export type NewAccountRow = Omit<Insertable<AccountsTable>, 'tenant_id'>;

export interface AccountFilter {
  query?: string;
  emptyOnly: boolean;
}

const COLUMNS = [
  'id',
  'domain',
  'name',
  'created_at',
  'updated_at',
  'linked_persons_count',
  'latest_activity_at',
] as const;

export async function insertAccount(db: TenantDb<AccountsTables>, row: NewAccountRow): Promise<void> {
  await db.insertInto('accounts', row).execute();
}

/** Inserts the account unless its domain is taken; either way returns the id of the domain's account. */
export async function ensureAccount(db: TenantDb<AccountsTables>, row: NewAccountRow): Promise<string> {
  await db
    .insertInto('accounts', row)
    .onConflict((oc) => oc.columns(['tenant_id', 'domain']).doNothing())
    .execute();
  const found = await db
    .selectFrom('accounts')
    .select('id')
    .where('domain', '=', row.domain)
    .executeTakeFirstOrThrow();
  return found.id;
}

export function findAccount(db: TenantDb<AccountsTables>, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findAccounts(db: TenantDb<AccountsTables>, ids: string[]): Promise<AccountRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('accounts').select(COLUMNS).where('id', 'in', ids).execute();
}

export function findAccountByDomain(
  db: TenantDb<AccountsTables>,
  domain: string,
): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').select(COLUMNS).where('domain', '=', domain).executeTakeFirst();
}

export async function renameAccount(
  db: TenantDb<AccountsTables>,
  id: string,
  name: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ name, updated_at: at })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function searchAccounts(
  db: TenantDb<AccountsTables>,
  filter: AccountFilter,
  page: Paging,
): Promise<Paged<AccountRow>> {
  let matching = db.selectFrom('accounts');
  if (filter.query)
    matching = matching.where(db.dialect.substringMatch('accounts', ['name', 'domain'], filter.query));
  if (filter.emptyOnly) matching = matching.where('linked_persons_count', '=', 0);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'accounts.id', page),
    // Unfiltered, the total is the tenant's counter: no count over every account.
    filter.query || filter.emptyOnly ? db.countRows(matching) : db.rowCount('accounts'),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}
