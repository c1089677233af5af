import { mapPage, type Page, type PageRequest } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { AppError, invalidField, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { toNullableTimestamp, toTimestamp } from '../../time.ts';
import { linkedPersons } from '../persons/service.ts';
import { canonicalDomain } from './domain.ts';
import type { Account, AccountCreate, AccountSearchItem } from './schema.ts';
import {
  type AccountRow,
  type AccountSearchRow,
  type AccountWithActivity,
  ensureAccount,
  findAccount,
  findAccountByDomain,
  insertAccount,
  renameAccount,
  searchAccounts,
} from './store.ts';

const LINKED_PERSONS_SHOWN = 100;

function fields(row: AccountWithActivity) {
  return {
    accountId: row.id,
    domain: row.domain,
    name: row.name,
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
    latestActivityAt: toNullableTimestamp(row.latest_activity_at),
  };
}

function presentSearchItem(row: AccountSearchRow): AccountSearchItem {
  return { ...fields(row), linkedPersonsCount: Number(row.linked_persons_count) };
}

function newAccountRow(domain: string, name: string | null): AccountRow {
  const now = Date.now();
  return { id: newId('account'), domain, name, created_at: now, updated_at: now };
}

export async function getAccount(db: TenantDb, id: string): Promise<Account> {
  const row = await findAccount(db, id);
  if (!row) throw notFound(`Account ${id}`);
  return { ...fields(row), linkedPersons: await linkedPersons(db, id, LINKED_PERSONS_SHOWN) };
}

export async function createAccount(db: TenantDb, input: AccountCreate): Promise<Account> {
  const domain = canonicalDomain(input.domain);
  if (!domain) throw invalidField('/body/domain', 'must be a domain name with a dot, e.g. acme.com');
  const row = newAccountRow(domain, input.name ?? null);
  try {
    await insertAccount(db, row);
  } catch (error) {
    if (!db.dialect.isUniqueViolation(error)) throw error;
    const holder = await findAccountByDomain(db, domain);
    throw new AppError(
      'conflict',
      `An account with domain ${domain} already exists: ${holder?.id ?? 'unknown'}`,
    );
  }
  return getAccount(db, row.id);
}

export async function renameAccountById(db: TenantDb, id: string, name: string): Promise<Account> {
  if (!(await renameAccount(db, id, name, Date.now()))) throw notFound(`Account ${id}`);
  return getAccount(db, id);
}

export async function searchAccountItems(
  db: TenantDb,
  filter: { query?: string; includeEmptyOnly?: string },
  page: PageRequest,
): Promise<Page<AccountSearchItem>> {
  const emptyOnly = filter.includeEmptyOnly === 'true' || filter.includeEmptyOnly === '1';
  return mapPage(await searchAccounts(db, { query: filter.query, emptyOnly }, page), presentSearchItem);
}

/** The id of the account of a canonical domain, created (without a name) when there is none. */
export async function accountIdForDomain(db: TenantDb, domain: string): Promise<string> {
  return (await ensureAccount(db, newAccountRow(domain, null))).id;
}
