import { CREATED_AND_UPDATED, fieldsOf, nullableTimestamp } from '../../db/fields.ts';
import type { Paged, Paging } from '../../db/paging.ts';
import { mapPaged } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { canonicalDomain } from '../../shared/domain.ts';
import { AppError, found, invalidField } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type AccountCreate, AccountFields, type AccountSearchItem } from './schema.ts';
import {
  type AccountRow,
  ensureAccount,
  findAccount,
  findAccountByDomain,
  findAccounts,
  insertAccount,
  type NewAccountRow,
  renameAccount,
  searchAccounts,
} from './store.ts';

const accountFields = fieldsOf<AccountRow>()(AccountFields, {
  accountId: 'id',
  domain: 'domain',
  name: 'name',
  ...CREATED_AND_UPDATED,
  latestActivityAt: { column: 'latest_activity_at', codec: nullableTimestamp },
});

const present = accountFields.present;

function presentSearchItem(row: AccountRow): AccountSearchItem {
  return { ...present(row), linkedPersonsCount: Number(row.linked_persons_count) };
}

function newAccountRow(domain: string, name: string | null): NewAccountRow {
  const now = Date.now();
  return { id: newId('account'), domain, name, created_at: now, updated_at: now };
}

/** The account's fields, or undefined when the tenant has no such account. */
export async function findAccountFields(db: TenantDb, id: string): Promise<AccountFields | undefined> {
  const row = await findAccount(db, id);
  return row && present(row);
}

export async function getAccountFields(db: TenantDb, id: string): Promise<AccountFields> {
  return found(await findAccountFields(db, id), `Account ${id}`);
}

/** The accounts of these ids that exist, by id. */
export async function accountsByIds(db: TenantDb, ids: string[]): Promise<Map<string, AccountFields>> {
  const rows = await findAccounts(db, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, present(row)]));
}

export async function createAccount(db: TenantDb, input: AccountCreate): Promise<AccountFields> {
  const domain = canonicalDomain(input.domain);
  if (!domain) throw invalidField('/body/domain', 'must be a domain name with a dot, e.g. acme.com');
  const row = newAccountRow(domain, input.name ?? null);
  try {
    await insertAccount(db, row);
  } catch (error) {
    if (!db.errors.isUniqueViolation(error)) throw error;
    const holder = await findAccountByDomain(db, domain);
    throw new AppError(
      'conflict',
      `An account with domain ${domain} already exists: ${holder?.id ?? 'unknown'}`,
    );
  }
  return getAccountFields(db, row.id);
}

export async function renameAccountById(db: TenantDb, id: string, name: string): Promise<AccountFields> {
  return db.transaction(async (tx) => {
    found(await renameAccount(tx, id, name, Date.now()), `Account ${id}`);
    return getAccountFields(tx, id);
  });
}

export async function searchAccountItems(
  db: TenantDb,
  filter: { query?: string; includeEmptyOnly?: string },
  page: Paging,
): Promise<Paged<AccountSearchItem>> {
  const emptyOnly = filter.includeEmptyOnly === 'true' || filter.includeEmptyOnly === '1';
  return mapPaged(await searchAccounts(db, { query: filter.query, emptyOnly }, page), presentSearchItem);
}

/** The id of the account of a canonical domain, created (without a name) when there is none. */
export function accountIdForDomain(db: TenantDb, domain: string): Promise<string> {
  return ensureAccount(db, newAccountRow(domain, null));
}
