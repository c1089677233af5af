import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { TenantDb } from '../../src/db/tenant-db.ts';
import type { IdempotencyKeysTable } from '../../src/http/idempotency-store.ts';
import { createTenantWithKey } from '../../src/workflows/tenant-setup/service.ts';
import { testDatabase } from '../helpers/server.ts';

// A keyed request runs in one transaction (src/http/idempotency.ts): services' own transactions
// nest in it, and their writes outside those were written for statements that commit on their own.
// These are the rules that make that work: the deferred transaction, and savepoints.

type Tables = { idempotency_keys: IdempotencyKeysTable };

let database: Database;
let db: TenantDb<Tables>;
let run = 0;

beforeAll(async () => {
  database = await testDatabase();
  await migrateToLatest(database);
  const tenant = await createTenantWithKey(database, { name: 'Transactions', slug: `tx-${Date.now()}` });
  db = database.forTenant(tenant.tenantId);
});
afterAll(() => database.close());

/** Rows of one test, named by their fingerprint; a name inserted twice collides on the primary key. */
function rows() {
  const prefix = `run-${++run}`;
  return {
    insert: (handle: TenantDb<Tables>, name: string) =>
      handle
        .insertInto('idempotency_keys', {
          scope: 'test',
          key: `${prefix}-${name}`,
          fingerprint: name,
          locked_at: 0,
          expires_at: Date.now() + 60_000,
          claim_token: null,
        })
        .execute(),
    kept: async () =>
      (
        await db
          .selectFrom('idempotency_keys')
          .select('fingerprint')
          .where('key', 'like', `${prefix}-%`)
          .orderBy('fingerprint')
          .execute()
      ).map((row) => row.fingerprint),
  };
}

describe('a deferred transaction', () => {
  it('begins with its first write, and commits every write together', async () => {
    const { insert, kept } = rows();
    const transaction = db.deferredTransaction();
    await transaction.db.selectFrom('idempotency_keys').select('key').execute();
    expect(transaction.begun).toBe(false);
    await insert(transaction.db, 'a');
    expect(transaction.begun).toBe(true);
    await insert(transaction.db, 'b');
    // On PostgreSQL another connection sees none of it yet (on SQLite the read would wait for the
    // one writer's commit).
    if (database.engine === 'postgres') expect(await kept()).toEqual([]);
    await transaction.commit();
    expect(await kept()).toEqual(['a', 'b']);
  });

  it('keeps nothing when rolled back, and runs what waits for its commit only after one', async () => {
    const { insert, kept } = rows();
    const calls: string[] = [];
    const rolledBack = db.deferredTransaction();
    await insert(rolledBack.db, 'a');
    rolledBack.db.afterCommit(() => calls.push('rolled back'));
    await rolledBack.rollback();
    expect(await kept()).toEqual([]);

    const committed = db.deferredTransaction();
    await insert(committed.db, 'b');
    committed.db.afterCommit(() => calls.push('committed'));
    expect(calls).toEqual([]);
    await committed.commit();
    expect(calls).toEqual(['committed']);
  });

  it('undoes a failed write outside a nested transaction alone, and goes on', async () => {
    const { insert, kept } = rows();
    const transaction = db.deferredTransaction();
    await insert(transaction.db, 'a');
    await expect(insert(transaction.db, 'a')).rejects.toSatisfy((error) =>
      db.errors.isUniqueViolation(error),
    );
    await insert(transaction.db, 'b');
    // On PostgreSQL another connection sees none of it yet (on SQLite the read would wait for the
    // one writer's commit).
    if (database.engine === 'postgres') expect(await kept()).toEqual([]);
    await transaction.commit();
    expect(await kept()).toEqual(['a', 'b']);
  });

  it('refuses statements once it has ended', async () => {
    const { insert } = rows();
    const transaction = db.deferredTransaction();
    await transaction.commit();
    await expect(insert(transaction.db, 'late')).rejects.toThrow('ended');
  });
});

describe('a transaction inside another', () => {
  for (const outer of ['deferred', 'ordinary'] as const) {
    it(`is undone alone when it fails, in a${outer === 'ordinary' ? 'n' : ''} ${outer} transaction`, async () => {
      const { insert, kept } = rows();
      const work = async (tx: TenantDb<Tables>) => {
        await insert(tx, 'a');
        await expect(
          tx.transaction(async (nested) => {
            await insert(nested, 'b');
            await insert(nested, 'a');
          }),
        ).rejects.toSatisfy((error) => db.errors.isUniqueViolation(error));
        // A retryingTransaction runs again from its savepoint after losing a race on a key.
        let attempts = 0;
        await tx.retryingTransaction(3, async (nested) => {
          attempts++;
          await insert(nested, 'c');
          if (attempts === 1) await insert(nested, 'a');
        });
        expect(attempts).toBe(2);
      };
      if (outer === 'ordinary') {
        await db.transaction(work);
      } else {
        const transaction = db.deferredTransaction();
        await work(transaction.db);
        await transaction.commit();
      }
      expect(await kept()).toEqual(['a', 'c']);
    });
  }
});

describe('what a failed savepoint asked for at commit', () => {
  for (const outer of ['deferred', 'ordinary'] as const) {
    it(`is undone with it, in a${outer === 'ordinary' ? 'n' : ''} ${outer} transaction: its callbacks dropped, its channel told again by the retry`, async () => {
      const { insert } = rows();
      const ran: string[] = [];
      const channel = `savepoint_${run}`;
      let heard = 0;
      const listening = database.listen(channel, () => heard++);
      // A listener is also told once its connection is up (it may have missed notices): count from
      // then on, or a busy machine that connects before the commit hears two.
      if (database.engine === 'postgres') {
        await expect.poll(() => heard).toBeGreaterThan(0);
        heard = 0;
      }
      try {
        const work = async (tx: TenantDb<Tables>) => {
          await insert(tx, 'a');
          let attempts = 0;
          await tx.retryingTransaction(3, async (nested) => {
            attempts++;
            nested.afterCommit(() => ran.push(`attempt ${attempts}`));
            await nested.notify(channel);
            await insert(nested, attempts === 1 ? 'a' : 'b');
          });
        };
        if (outer === 'ordinary') {
          await db.transaction(work);
        } else {
          const transaction = db.deferredTransaction();
          await work(transaction.db);
          await transaction.commit();
        }
        expect(ran).toEqual(['attempt 2']);
        // PostgreSQL tells other processes; SQLite has no NOTIFY, and nothing to lose.
        if (database.engine === 'postgres') await expect.poll(() => heard, { timeout: 5_000 }).toBe(1);
      } finally {
        await listening.close();
      }
    });
  }
});
