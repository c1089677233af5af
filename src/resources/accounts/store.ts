import { type Selectable, sql } from 'kysely';
import { descendingAfter, type Page, type PageRequest, pageOf } from '../../db/paging.ts';
import type { AccountsTable } from '../../db/schema.ts';
import type { TenantDb } from '../../db/tenant-db.ts';

export type AccountRow = Omit<Selectable<AccountsTable>, 'tenant_id'>;
export type AccountWithActivity = AccountRow & { latest_activity_at: number | null };
export type AccountSearchRow = AccountWithActivity & { linked_persons_count: number };

export interface AccountFilter {
  query?: string;
  emptyOnly: boolean;
}

const COLUMNS = [
  'accounts.id',
  'accounts.domain',
  'accounts.name',
  'accounts.created_at',
  'accounts.updated_at',
] as const;

const latestActivity = sql<
  number | null
>`(SELECT max(p.latest_activity_at) FROM persons p WHERE p.account_id = accounts.id)`;
const linkedCount = sql<number>`(SELECT count(*) FROM persons p WHERE p.account_id = accounts.id)`;

export async function insertAccount(db: TenantDb, row: AccountRow): Promise<void> {
  await db.insertInto('accounts', row).execute();
}

/** Inserts the account unless its domain is taken; either way returns the account of the domain. */
export async function ensureAccount(db: TenantDb, row: AccountRow): Promise<AccountRow> {
  await db
    .insertInto('accounts', row)
    .onConflict((oc) => oc.columns(['tenant_id', 'domain']).doNothing())
    .execute();
  return db.selectFrom('accounts').select(COLUMNS).where('domain', '=', row.domain).executeTakeFirstOrThrow();
}

export function findAccount(db: TenantDb, id: string): Promise<AccountWithActivity | undefined> {
  return db
    .selectFrom('accounts')
    .select([...COLUMNS, latestActivity.as('latest_activity_at')])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findAccountByDomain(db: TenantDb, domain: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').select(COLUMNS).where('domain', '=', domain).executeTakeFirst();
}

export async function renameAccount(db: TenantDb, id: string, name: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ name, updated_at: at })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function searchAccounts(
  db: TenantDb,
  filter: AccountFilter,
  page: PageRequest,
): Promise<Page<AccountSearchRow>> {
  let matching = db.selectFrom('accounts');
  if (filter.query)
    matching = matching.where(db.dialect.substringMatch('accounts', ['name', 'domain'], filter.query));
  if (filter.emptyOnly) {
    matching = matching.where(
      sql<boolean>`NOT EXISTS (SELECT 1 FROM persons p WHERE p.account_id = accounts.id)`,
    );
  }
  const [rows, total] = await Promise.all([
    descendingAfter(
      matching.select([
        ...COLUMNS,
        latestActivity.as('latest_activity_at'),
        linkedCount.as('linked_persons_count'),
      ]),
      'accounts.id',
      page,
    ),
    // Unfiltered, the total is the tenant's counter: no count over every account.
    filter.query || filter.emptyOnly ? db.countRows(matching) : db.rowCount('accounts'),
  ]);
  return pageOf(rows, page, (row) => [row.id], total);
}
