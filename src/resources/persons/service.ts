import { CREATED_AND_UPDATED, fieldsOf } from '../../db/fields.ts';
import type { Paged, Paging } from '../../db/paging.ts';
import { mapPaged } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { canonicalDomain } from '../../shared/domain.ts';
import { emailDomain } from '../../shared/email.ts';
import { AppError, found, invalidField } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { slugOf } from '../../shared/slug.ts';
import { Person, PersonCreate, type PersonUpdate } from './schema.ts';
import {
  deletePerson,
  findPerson,
  findPersonByEmail,
  findPersons,
  insertPersonUnlessSlugTaken,
  listPersons,
  type PersonChanges,
  type PersonRow,
  personsOfAccount,
  recordActivityAt,
  SLUGS_PROBED,
  slugsTaken,
  updatePerson,
} from './store.ts';

/**
 * The id of the account of a canonical domain, created (without a name) when there is none: a
 * person with a domain is linked to that account. The accounts resource answers; the server wires
 * it in (src/wiring.ts). Null leaves the person without an account: form enrichment answers so for
 * a free-mail domain, which names no company.
 */
export type AccountOfDomain = (db: TenantDb, domain: string) => Promise<string | null>;

/**
 * Erases what the service holds of the person outside their own row and log, in the transaction
 * that deletes them, given the person as they were: the pages made for them, their form
 * submissions and the events that carry their details. The person-erasure workflow answers; the
 * server wires it in (src/wiring.ts).
 */
export type EraseTraces = (tx: TenantDb, person: ErasedPerson, now: number) => Promise<void>;

/** A person being erased, as they were: their record, and the account they were linked to. */
export interface ErasedPerson extends Person {
  accountId: string | null;
}

/** What other resources show of a person: audiences are named after them. */
export interface PersonSummary {
  name: string;
  slug: string;
  accountId: string | null;
}

const MAX_SLUG = 80;
/** A create that failed on the email's unique key, whose holder is gone when looked up, runs once more. */
const CREATE_ATTEMPTS = 2;

/** The one place a person's field meets its column. */
const personFields = fieldsOf<PersonRow>()(Person, {
  personId: 'id',
  name: 'name',
  email: 'email',
  domain: 'domain',
  slug: 'slug',
  phoneNumber: 'phone_number',
  linkedinProfileUrl: 'linkedin_profile_url',
  ...CREATED_AND_UPDATED,
});

export const presentPerson = personFields.present;

async function requirePerson(db: TenantDb, id: string): Promise<PersonRow> {
  return found(await findPerson(db, id), `Person ${id}`);
}

function domainOfEmail(email: string): string {
  const domain = emailDomain(email);
  if (!domain)
    throw invalidField('/body/email', 'must be an email address whose domain has a dot, e.g. jane@acme.com');
  return domain;
}

function givenDomain(domain: string): string {
  const canonical = canonicalDomain(domain);
  if (!canonical) throw invalidField('/body/domain', 'must be a domain name with a dot, e.g. acme.com');
  return canonical;
}

/** The domain rule: the given domain, else the email's domain, else none. */
function resolveDomain(
  given: string | null,
  email: string | null,
): { domain: string | null; domain_given: number } {
  if (given !== null) return { domain: givenDomain(given), domain_given: 1 };
  return { domain: email === null ? null : domainOfEmail(email), domain_given: 0 };
}

async function assertEmailFree(db: TenantDb, emailKey: string | null, personId?: string): Promise<void> {
  if (emailKey === null) return;
  const holder = await findPersonByEmail(db, emailKey);
  if (holder && holder.id !== personId) {
    throw new AppError('conflict', `A person with this email already exists: ${holder.id}`);
  }
}

/**
 * Inserts the person with the first free slug made from the name: the name's own, else `-2`, `-3`…
 * The name's own is usually free, so the insert tries it first and does nothing when it is taken;
 * then the numbered ones are looked up by equality, a few at a time, so that the index answers (a
 * prefix match would scan every person of the tenant), and inserted in turn until one is free. A
 * slug that a concurrent create took meanwhile makes its insert do nothing, and the next is tried:
 * no lock, no failure, and on PostgreSQL no round trip besides the insert in the usual case.
 */
async function insertWithFreeSlug(
  tx: TenantDb,
  unslugged: Omit<PersonRow, 'slug'>,
  name: string,
): Promise<PersonRow> {
  const inserted = async (slug: string) => {
    const row = { ...unslugged, slug };
    return (await insertPersonUnlessSlugTaken(tx, row)) ? row : undefined;
  };
  const base = slugOf(name, MAX_SLUG) || 'person';
  const withBase = await inserted(base);
  if (withBase) return withBase;
  for (let first = 2; ; first += SLUGS_PROBED) {
    const candidates = Array.from({ length: SLUGS_PROBED }, (_, i) => `${base}-${first + i}`);
    const taken = new Set(await slugsTaken(tx, candidates));
    for (const candidate of candidates) {
      const row = taken.has(candidate) ? undefined : await inserted(candidate);
      if (row) return row;
    }
  }
}

/**
 * Creates a person, linked to the account of their domain (created when missing). The email is not
 * looked up beforehand: an email in use fails the insert on its unique key, and only then is its
 * holder looked up, for a conflict; when that holder is gone by then, the create runs once more.
 */
export async function createPerson(
  db: TenantDb,
  input: PersonCreate,
  accountOf: AccountOfDomain,
): Promise<Person> {
  const email = input.email ?? null;
  const keys: NewPersonKeys = {
    email_key: email?.toLowerCase() ?? null,
    ...resolveDomain(input.domain ?? null, email),
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((tx) => insertNewPerson(tx, input, keys, accountOf));
    } catch (error) {
      if (!db.errors.isUniqueViolation(error)) throw error;
      await assertEmailFree(db, keys.email_key);
      if (attempt >= CREATE_ATTEMPTS) throw error;
    }
  }
}

/** What a new person's row takes from its email and domain, worked out before its transaction. */
type NewPersonKeys = Pick<PersonRow, 'email_key' | 'domain' | 'domain_given'>;

async function insertNewPerson(
  tx: TenantDb,
  input: PersonCreate,
  keys: NewPersonKeys,
  accountOf: AccountOfDomain,
): Promise<Person> {
  const now = Date.now();
  const row: Omit<PersonRow, 'slug'> = {
    ...personFields.columns(PersonCreate, input),
    ...keys,
    id: newId('person'),
    account_id: keys.domain === null ? null : await accountOf(tx, keys.domain),
    latest_activity_at: null,
    created_at: now,
    updated_at: now,
  };
  return presentPerson(await insertWithFreeSlug(tx, row, input.name));
}

export async function getPerson(db: TenantDb, id: string): Promise<Person> {
  return presentPerson(await requirePerson(db, id));
}

function changesFor(current: PersonRow, input: PersonUpdate): PersonChanges {
  const email = input.email === undefined ? current.email : input.email;
  const changes: PersonChanges = { ...personFields.write(input), updated_at: Date.now() };
  if (input.email !== undefined) changes.email_key = email?.toLowerCase() ?? null;
  const keptDomain = current.domain_given === 1 ? current.domain : null;
  Object.assign(changes, resolveDomain(input.domain === undefined ? keptDomain : input.domain, email));
  return changes;
}

/** Applies the fields given; `null` clears. The account link follows the resulting domain. */
export async function updatePersonFields(
  db: TenantDb,
  id: string,
  input: PersonUpdate,
  accountOf: AccountOfDomain,
): Promise<Person> {
  const current = await requirePerson(db, id);
  const changes = changesFor(current, input);
  await assertEmailFree(db, changes.email_key ?? null, id);
  try {
    return await db.transaction(async (tx) => {
      if (changes.domain !== current.domain) {
        changes.account_id = changes.domain ? await accountOf(tx, changes.domain) : null;
      }
      await updatePerson(tx, id, changes);
      // Read in the transaction: the answer is the person as this write left it (decisions §2).
      return getPerson(tx, id);
    });
  } catch (error) {
    if (!db.errors.isUniqueViolation(error)) throw error;
    // Another person took the email meanwhile: the 409 names them, as it would have had they come first.
    await assertEmailFree(db, changes.email_key ?? null, id);
    throw new AppError('conflict', 'A person with this email already exists');
  }
}

/**
 * Erases the person: their traces elsewhere (`eraseTraces`), then their row, with their log (the
 * foreign key cascades), in one transaction, so that nothing of them outlives the answer.
 */
export async function removePerson(
  db: TenantDb,
  id: string,
  eraseTraces: EraseTraces,
  now: number,
): Promise<{ personId: string; deleted: true }> {
  return db.transaction(async (tx) => {
    const row = await requirePerson(tx, id);
    await eraseTraces(tx, { ...presentPerson(row), accountId: row.account_id }, now);
    found(await deletePerson(tx, id), `Person ${id}`);
    return { personId: id, deleted: true };
  });
}

export async function listAllPersons(
  db: TenantDb,
  filter: { email?: string; query?: string },
  page: Paging,
): Promise<Paged<Person>> {
  const rows = await listPersons(db, { emailKey: filter.email?.toLowerCase(), query: filter.query }, page);
  return mapPaged(rows, presentPerson);
}

/** The account's 100 most recently updated persons (LINKED_PERSONS_SHOWN). */
export async function linkedPersons(db: TenantDb, accountId: string): Promise<Person[]> {
  return (await personsOfAccount(db, accountId)).map(presentPerson);
}

/** What audiences show of their persons, by id; persons that do not exist are left out. */
export async function personSummaries(db: TenantDb, ids: string[]): Promise<Map<string, PersonSummary>> {
  const rows = await findPersons(db, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, { name: row.name, slug: row.slug, accountId: row.account_id }]));
}

/** Fails with not_found unless the person exists in the tenant. */
export async function assertPersonExists(db: TenantDb, id: string): Promise<void> {
  await requirePerson(db, id);
}

/** Notes that the person did something at `at`; their account's latestActivityAt follows. */
export async function notePersonActivity(db: TenantDb, id: string, at: number): Promise<void> {
  await recordActivityAt(db, id, at);
}
