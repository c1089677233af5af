import type { Insertable, Selectable, SelectQueryBuilder } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { AccountsTable, AccountsTables } from './tables.ts';

export type AccountRow = Omit<Selectable<AccountsTable>, 'tenant_id'>;
export type NewAccountRow = Omit<Insertable<AccountsTable>, 'tenant_id'>;

export interface AccountFilter {
  query?: string;
  emptyOnly: boolean;
}

/** The columns that a query is looked for in. */
const SEARCHED = ['name', 'domain'];

/** How many candidates after the cursor a page of matches is looked for among first (see matchingPage). */
export const NEAREST_ROWS = 2000;

/** The tenant's accounts that a search keeps before its query (all, or those without a linked person). */
type Candidates = SelectQueryBuilder<AccountsTables, 'accounts', object>;

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
  let candidates = db.selectFrom('accounts');
  if (filter.emptyOnly) candidates = candidates.where('linked_persons_count', '=', 0);
  const query = filter.query;
  if (!query) {
    const [rows, total] = await Promise.all([
      descendingAfter(candidates.select(COLUMNS), 'accounts.id', page),
      // Unfiltered, the total is the tenant's counter: no count over every account.
      filter.emptyOnly ? db.countRows(candidates) : db.rowCount('accounts'),
    ]);
    return pagedOf(rows, page, (row) => [row.id], total);
  }
  const rows = await matchingPage(db, candidates, query, page);
  // A first page that holds every match has counted them.
  const total =
    page.after === undefined && rows.length <= page.limit
      ? rows.length
      : await countMatches(db, candidates, query, filter.emptyOnly);
  return pagedOf(rows, page, (row) => [row.id], total);
}

function countMatches(
  db: TenantDb<AccountsTables>,
  candidates: Candidates,
  query: string,
  emptyOnly: boolean,
): Promise<number> {
  if (!emptyOnly) return db.countSubstringMatches('accounts', SEARCHED, query);
  // The index knows nothing of linked persons: the matching rows are read.
  return db.countRows(candidates.where(db.dialect.substringMatch('accounts', SEARCHED, query, db.tenantId)));
}

/**
 * The rows of a page of matches. They are looked for first among the NEAREST_ROWS candidates after
 * the cursor, in the part of the index that covers those rows; only when fewer than a page match
 * there are the older ones found through the tenant's whole part of the index. A common query finds
 * its page near the cursor and a rare one has few matches to read, so that neither reads every
 * match to keep the newest.
 */
async function matchingPage(
  db: TenantDb<AccountsTables>,
  candidates: Candidates,
  query: string,
  page: Paging,
): Promise<AccountRow[]> {
  const below = page.after === undefined ? undefined : String(page.after[0]);
  const afterCursor = below === undefined ? candidates : candidates.where('id', '<', below);
  const farthest = await afterCursor
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(NEAREST_ROWS - 1)
    .executeTakeFirst();
  const from = farthest?.id;
  const nearest = from === undefined ? candidates : candidates.where('id', '>=', from);
  const near = await descendingAfter(
    nearest
      .where(db.dialect.substringMatchBetween('accounts', SEARCHED, query, db.tenantId, { from, below }))
      .select(COLUMNS),
    'accounts.id',
    page,
  );
  if (from === undefined || near.length > page.limit) return near;
  const older = await descendingAfter(
    candidates.where(db.dialect.substringMatch('accounts', SEARCHED, query, db.tenantId)).select(COLUMNS),
    'accounts.id',
    { limit: page.limit - near.length, after: [from] },
  );
  return [...near, ...older];
}
