import type { TenantDb } from '../../db/tenant-db.ts';
import type { AccountCreate, AccountFields } from '../../resources/accounts/schema.ts';
import * as accounts from '../../resources/accounts/service.ts';
import * as persons from '../../resources/persons/service.ts';
import type { Account } from './schema.ts';

async function withLinkedPersons(db: TenantDb, account: AccountFields): Promise<Account> {
  return {
    ...account,
    linkedPersons: await persons.linkedPersons(db, account.accountId),
  };
}

export async function getAccount(db: TenantDb, id: string): Promise<Account> {
  return withLinkedPersons(db, await accounts.getAccountFields(db, id));
}

export async function createAccount(db: TenantDb, input: AccountCreate): Promise<Account> {
  return withLinkedPersons(db, await accounts.createAccount(db, input));
}

export async function renameAccount(db: TenantDb, id: string, name: string): Promise<Account> {
  return withLinkedPersons(db, await accounts.renameAccountById(db, id, name));
}
