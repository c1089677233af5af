import type { Insertable, Selectable, SelectQueryBuilder } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import { matchingPage } from '../../db/search.ts';
import { compiled, type TenantDb } from '../../db/tenant-db.ts';
import type { AccountsTable, AccountsTables } from './tables.ts';

export type AccountRow = Omit<Selectable<AccountsTable>, 'tenant_id'>;
export type NewAccountRow = Omit<Insertable<AccountsTable>, 'tenant_id'>;

export interface AccountFilter {
  query?: string;
  emptyOnly: boolean;
}

/** The columns that a query is looked for in. */
const SEARCHED = ['name', 'domain'];

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

type Db = TenantDb<AccountsTables>;

// Compiled (db/compiled.ts): the hot statements of an account's read and of a person's create.
const byId = compiled((db: Db, p: { id: string }) =>
  db.selectFrom('accounts').select(COLUMNS).where('id', '=', p.id),
);

const insertUnlessDomainTaken = compiled((db: Db, p: NewAccountRow) =>
  db
    .insertInto('accounts', {
      id: p.id,
      domain: p.domain,
      name: p.name,
      created_at: p.created_at,
      updated_at: p.updated_at,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'domain']).doNothing())
    .returning('id'),
);

const idOfDomain = compiled((db: Db, p: { domain: string }) =>
  db.selectFrom('accounts').select('id').where('domain', '=', p.domain),
);

export async function insertAccount(db: TenantDb<AccountsTables>, row: NewAccountRow): Promise<void> {
  await db.insertInto('accounts', row).execute();
}

/**
 * Inserts the account unless its domain is taken; either way returns the id of the domain's account.
 * Looked up first: the domain usually has its account already, and a read costs less than an
 * insert that does nothing. The insert answers the id it inserted; one made meanwhile by a
 * concurrent transaction (the insert then does nothing) is looked up again.
 */
export async function ensureAccount(db: TenantDb<AccountsTables>, row: NewAccountRow): Promise<string> {
  const existing = await db.first(idOfDomain, row);
  if (existing) return existing.id;
  const inserted = await db.first(insertUnlessDomainTaken, row);
  if (inserted) return inserted.id;
  const found = await db.first(idOfDomain, row);
  if (!found) throw new Error(`the account of ${row.domain} is gone`);
  return found.id;
}

export function findAccount(db: TenantDb<AccountsTables>, id: string): Promise<AccountRow | undefined> {
  return db.first(byId, { id });
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
  const { rows, resumeBelow } = await matchingPage<AccountRow>(
    db,
    candidates,
    (rows) => rows.select(COLUMNS),
    { table: 'accounts', columns: SEARCHED, query },
    page,
  );
  // A first page that holds every match has counted them.
  const total =
    page.after === undefined && resumeBelow === undefined && rows.length <= page.limit
      ? rows.length
      : await countMatches(db, candidates, query, filter.emptyOnly);
  return pagedOf(rows, page, (row) => [row.id], total, resumeBelow === undefined ? undefined : [resumeBelow]);
}

function countMatches(
  db: TenantDb<AccountsTables>,
  candidates: Candidates,
  query: string,
  emptyOnly: boolean,
): Promise<number> {
  if (!emptyOnly) return db.countSubstringMatches('accounts', SEARCHED, query);
  // The index knows nothing of linked persons: the matching rows are read.
  return db.countRows(candidates.where(db.search.substringMatch('accounts', SEARCHED, query, db.tenantId)));
}
