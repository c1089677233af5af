import { type Selectable, sql, type Updateable } from 'kysely';
import { columnsOf } from '../../db/compiled.ts';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import { matchingPage, SEARCH_COUNT_CAP } from '../../db/search.ts';
import { compiled, type TenantDb } from '../../db/tenant-db.ts';
import type { PersonsTable, PersonsTables } from './tables.ts';

export type PersonRow = Omit<Selectable<PersonsTable>, 'tenant_id'>;
export type PersonChanges = Omit<Updateable<PersonsTable>, 'tenant_id' | 'id' | 'slug' | 'created_at'>;

const COLUMNS = [
  'id',
  'account_id',
  'name',
  'email',
  'email_key',
  'domain',
  'domain_given',
  'slug',
  'phone_number',
  'linkedin_profile_url',
  'latest_activity_at',
  'created_at',
  'updated_at',
] as const;

/** The columns that a query is looked for in. */
const SEARCHED = ['name', 'email'];

/** How many candidate slugs slugsTaken looks up at once. */
export const SLUGS_PROBED = 20;

type Db = TenantDb<PersonsTables>;

// Compiled (db/compiled.ts): the hot statements of a person's create, an account's read and a visit.
const insertUnlessSlugTaken = compiled((db: Db, p: PersonRow) =>
  db
    .insertInto('persons', columnsOf(p, COLUMNS))
    .onConflict((oc) => oc.columns(['tenant_id', 'slug']).doNothing()),
);

const byId = compiled((db: Db, p: { id: string }) =>
  db.selectFrom('persons').select(COLUMNS).where('id', '=', p.id),
);

const byEmail = compiled((db: Db, p: { emailKey: string }) =>
  db.selectFrom('persons').select(COLUMNS).where('email_key', '=', p.emailKey),
);

const takenSlugs = compiled(
  (db: Db, p: { slugs: string[] }) => db.selectFrom('persons').select('slug').where('slug', 'in', p.slugs),
  { slugs: SLUGS_PROBED },
);

/** How many persons an account is shown with, the most recently updated first. */
export const LINKED_PERSONS_SHOWN = 100;

// The limit is written into the SQL, not bound: SQLite plans `LIMIT 100` for less than half the
// time of `LIMIT ?` (6.4 against 17.6 µs a run, measured), and the limit never changes.
const ofAccount = compiled((db: Db, p: { accountId: string }) =>
  db
    .selectFrom('persons')
    .select(COLUMNS)
    .where('account_id', '=', p.accountId)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(sql.lit(LINKED_PERSONS_SHOWN)),
);

const activityAt = compiled((db: Db, p: { id: string; at: number }) =>
  db
    .updateTable('persons')
    .set({ latest_activity_at: p.at })
    .where('id', '=', p.id)
    .where((eb) => eb.or([eb('latest_activity_at', 'is', null), eb('latest_activity_at', '<', p.at)])),
);

/**
 * Inserts the person unless another person of the tenant has their slug, and answers whether it
 * did; an email in use still fails the insert on its unique key. A concurrent insert of the same
 * slug is waited for (PostgreSQL) and then counts as taken, so no lock is needed to choose one.
 */
export async function insertPersonUnlessSlugTaken(db: Db, row: PersonRow): Promise<boolean> {
  return (await db.run(insertUnlessSlugTaken, row)) > 0;
}

export function findPerson(db: Db, id: string): Promise<PersonRow | undefined> {
  return db.first(byId, { id });
}

export function findPersons(db: TenantDb<PersonsTables>, ids: string[]): Promise<PersonRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('persons').select(COLUMNS).where('id', 'in', ids).execute();
}

export function findPersonByEmail(
  db: TenantDb<PersonsTables>,
  emailKey: string,
): Promise<PersonRow | undefined> {
  return db.first(byEmail, { emailKey });
}

/** Which of `slugs`, SLUGS_PROBED of them, are in use. */
export async function slugsTaken(db: Db, slugs: string[]): Promise<string[]> {
  const rows = await db.all(takenSlugs, { slugs });
  return rows.map((row) => row.slug);
}

export async function updatePerson(
  db: TenantDb<PersonsTables>,
  id: string,
  changes: PersonChanges,
): Promise<void> {
  await db.updateTable('persons').set(changes).where('id', '=', id).execute();
}

/** Erases the person; their log goes with them (the foreign key cascades). */
export async function deletePerson(db: TenantDb<PersonsTables>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('persons').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Moves the person's latest activity forward to `at` (never back). */
export async function recordActivityAt(db: Db, id: string, at: number): Promise<void> {
  await db.run(activityAt, { id, at });
}

export async function listPersons(
  db: TenantDb<PersonsTables>,
  filter: { emailKey?: string; query?: string },
  page: Paging,
): Promise<Paged<PersonRow>> {
  const query = filter.query;
  if (query && filter.emailKey === undefined) return searchPersons(db, query, page);
  let matching = db.selectFrom('persons');
  // One person at most has the email: the query is checked on that row alone.
  if (filter.emailKey !== undefined) matching = matching.where('email_key', '=', filter.emailKey);
  if (query) matching = matching.where(db.search.containsText('persons', SEARCHED, query));
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    filter.emailKey === undefined ? db.rowCount('persons') : db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

/** The persons whose name or email holds `query`, newest first, found as db/search.ts says. */
async function searchPersons(
  db: TenantDb<PersonsTables>,
  query: string,
  page: Paging,
): Promise<Paged<PersonRow>> {
  const candidates = db.selectFrom('persons');
  const { rows, resumeBelow } = await matchingPage<PersonRow>(
    db,
    candidates,
    (rows) => rows.select(COLUMNS),
    { table: 'persons', columns: SEARCHED, query },
    page,
  );
  const resume = resumeBelow === undefined ? undefined : [resumeBelow];
  // A first page that holds every match has counted them.
  if (page.after === undefined && resume === undefined && rows.length <= page.limit)
    return pagedOf(rows, page, (row) => [row.id], rows.length);
  return pagedOf(rows, page, (row) => [row.id], await countMatches(db, query), resume);
}

/**
 * How many persons hold `query`, when at most SEARCH_COUNT_CAP do: counted in the index, which
 * stops past the cap. A query that no index serves is counted row by row, in a tenant of at most
 * SEARCH_COUNT_CAP persons only.
 */
async function countMatches(db: TenantDb<PersonsTables>, query: string): Promise<number | null> {
  if (!db.search.servesFromIndex(query) && (await db.rowCount('persons')) > SEARCH_COUNT_CAP) return null;
  const count = await db.countSubstringMatches('persons', SEARCHED, query, SEARCH_COUNT_CAP);
  return count > SEARCH_COUNT_CAP ? null : count;
}

/** The account's LINKED_PERSONS_SHOWN most recently updated persons. */
export function personsOfAccount(db: TenantDb<PersonsTables>, accountId: string): Promise<PersonRow[]> {
  return db.all(ofAccount, { accountId });
}
