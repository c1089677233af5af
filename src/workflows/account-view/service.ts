import { NextReads } from '../../db/per-turn.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { AccountCreate, AccountFields } from '../../resources/accounts/schema.ts';
import * as accounts from '../../resources/accounts/service.ts';
import * as persons from '../../resources/persons/service.ts';
import { found } from '../../shared/errors.ts';
import type { Account } from './schema.ts';

async function withLinkedPersons(db: TenantDb, account: AccountFields): Promise<Account> {
  return {
    ...account,
    linkedPersons: await persons.linkedPersons(db, account.accountId),
  };
}

async function findAccountView(db: TenantDb, id: string): Promise<Account | undefined> {
  const account = await accounts.findAccountFields(db, id);
  return account && withLinkedPersons(db, account);
}

/**
 * Account views, each read once for all the requests of a turn of the event loop that ask for it
 * (db/per-turn.ts NextReads): the requests that ask for one account of one tenant before its read
 * begins share it, so a read per account and turn rather than per request, and each request still
 * sees every change committed before it was sent. The views of at most 1,024 accounts are shared in
 * a turn; past them each request reads its own. The requests that share a read get one object,
 * which none of them changes, and read through the tenant's own handle (a GET's): a transaction's
 * handle would share what it has not committed.
 */
export class AccountViews {
  private readonly reads = new NextReads<string, Account | undefined>();

  /** The account with its linked persons; not_found when the tenant of `db` has no such account. */
  async get(db: TenantDb, id: string): Promise<Account> {
    const view = await this.reads.get(`${db.tenantId} ${id}`, () => findAccountView(db, id));
    return found(view, `Account ${id}`);
  }
}

export async function createAccount(db: TenantDb, input: AccountCreate): Promise<Account> {
  return withLinkedPersons(db, await accounts.createAccount(db, input));
}

export async function renameAccount(db: TenantDb, id: string, name: string): Promise<Account> {
  return withLinkedPersons(db, await accounts.renameAccountById(db, id, name));
}
