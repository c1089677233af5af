import type { Selectable, Updateable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
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

export async function insertPerson(db: TenantDb<PersonsTables>, row: PersonRow): Promise<void> {
  await db.insertInto('persons', row).execute();
}

export function findPerson(db: TenantDb<PersonsTables>, id: string): Promise<PersonRow | undefined> {
  return db.selectFrom('persons').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findPersons(db: TenantDb<PersonsTables>, ids: string[]): Promise<PersonRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('persons').select(COLUMNS).where('id', 'in', ids).execute();
}

export function findPersonByEmail(
  db: TenantDb<PersonsTables>,
  emailKey: string,
): Promise<PersonRow | undefined> {
  return db.selectFrom('persons').select(COLUMNS).where('email_key', '=', emailKey).executeTakeFirst();
}

/** Which of `slugs` are in use. */
export async function slugsTaken(db: TenantDb<PersonsTables>, slugs: string[]): Promise<string[]> {
  const rows = await db.selectFrom('persons').select('slug').where('slug', 'in', slugs).execute();
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
export async function recordActivityAt(db: TenantDb<PersonsTables>, id: string, at: number): Promise<void> {
  await db
    .updateTable('persons')
    .set({ latest_activity_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('latest_activity_at', 'is', null), eb('latest_activity_at', '<', at)]))
    .execute();
}

export async function listPersons(
  db: TenantDb<PersonsTables>,
  filter: { emailKey?: string; query?: string },
  page: Paging,
): Promise<Paged<PersonRow>> {
  let matching = db.selectFrom('persons');
  if (filter.emailKey !== undefined) matching = matching.where('email_key', '=', filter.emailKey);
  if (filter.query)
    matching = matching.where(db.dialect.containsText('persons', ['name', 'email'], filter.query));
  const filtered = filter.emailKey !== undefined || Boolean(filter.query);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    filtered ? db.countRows(matching) : db.rowCount('persons'),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

export function personsOfAccount(
  db: TenantDb<PersonsTables>,
  accountId: string,
  limit: number,
): Promise<PersonRow[]> {
  return db
    .selectFrom('persons')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
