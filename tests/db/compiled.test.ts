import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledAcrossTenants, compiledStatementName } from '../../src/db/compiled.ts';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { compiled, type TenantDb } from '../../src/db/tenant-db.ts';
import type { IdempotencyKeysTable } from '../../src/http/idempotency-store.ts';
import { createTenantWithKey } from '../../src/workflows/tenant-setup/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { onPostgres, testDatabase } from '../helpers/server.ts';

// Compiled statements (src/db/compiled.ts) on the table of tests/db/tenant-scope.test.ts:
// idempotency_keys is keyed per tenant, so both tenants hold a row with the same key.
const KEY = 'compiled-key';
const SCOPE = 'POST /v0/compiled';

type Tables = { idempotency_keys: IdempotencyKeysTable };
type AcrossTables = Tables;

const byKey = compiled((db: TenantDb<Tables>, p: { key: string }) =>
  db.selectFrom('idempotency_keys').select(['fingerprint', 'status_code']).where('key', '=', p.key),
);

const joined = compiled((db: TenantDb<Tables>, p: { key: string }) =>
  db
    .selectFrom('idempotency_keys')
    .leftJoin('idempotency_keys as other', 'other.key', 'idempotency_keys.key')
    .select(['idempotency_keys.fingerprint as own', 'other.fingerprint as other'])
    .where('idempotency_keys.key', '=', p.key),
);

const anyOf = compiled(
  (db: TenantDb<Tables>, p: { fingerprints: string[] }) =>
    db.selectFrom('idempotency_keys').select('fingerprint').where('fingerprint', 'in', p.fingerprints),
  { fingerprints: 2 },
);

const insert = compiled((db: TenantDb<Tables>, p: { key: string; fingerprint: string }) =>
  db.insertInto('idempotency_keys', {
    scope: SCOPE,
    key: p.key,
    fingerprint: p.fingerprint,
    status_code: 201,
    locked_at: 0,
    expires_at: 4_102_444_800_000,
  }),
);

const setStatus = compiled((db: TenantDb<Tables>, p: { key: string; status: number }) =>
  db.updateTable('idempotency_keys').set({ status_code: p.status }).where('key', '=', p.key),
);

let database: Database;
let mine: TenantDb<Tables>;
let theirs: TenantDb<Tables>;

beforeAll(async () => {
  database = await testDatabase();
  await migrateToLatest(database);
  const first = await createTenantWithKey(database, { name: 'Mine', slug: `c-mine-${Date.now()}` });
  const second = await createTenantWithKey(database, { name: 'Theirs', slug: `c-theirs-${Date.now()}` });
  mine = database.forTenant(first.tenantId);
  theirs = database.forTenant(second.tenantId);
  await mine.run(insert, { key: KEY, fingerprint: 'mine' });
  await theirs.run(insert, { key: KEY, fingerprint: 'theirs' });
});
afterAll(() => database.close());

describe('compiled statements', () => {
  it('run with their parameters, inserting for the tenant of the handle', async () => {
    expect(await mine.all(byKey, { key: KEY })).toEqual([{ fingerprint: 'mine', status_code: 201 }]);
    expect(await theirs.first(byKey, { key: KEY })).toEqual({ fingerprint: 'theirs', status_code: 201 });
    expect(await mine.first(byKey, { key: 'no-such-key' })).toBeUndefined();
    const rows = await anyTables(database)
      .selectFrom('idempotency_keys')
      .select(['tenant_id', 'fingerprint'])
      .where('key', '=', KEY)
      .orderBy('fingerprint')
      .execute();
    expect(rows).toEqual([
      { tenant_id: mine.tenantId, fingerprint: 'mine' },
      { tenant_id: theirs.tenantId, fingerprint: 'theirs' },
    ]);
  });

  it('compile to the SQL that the statement built per call runs, tenant conditions included', async () => {
    const perCall = mine
      .selectFrom('idempotency_keys')
      .leftJoin('idempotency_keys as other', 'other.key', 'idempotency_keys.key')
      .select(['idempotency_keys.fingerprint as own', 'other.fingerprint as other'])
      .where('idempotency_keys.key', '=', KEY)
      .compile();
    const query = mine.compiledQuery(joined, { key: KEY });
    expect(query.sql).toBe(perCall.sql);
    expect(query.parameters).toEqual(perCall.parameters);
  });

  it('cannot reach another tenant’s rows, in a join either', async () => {
    expect(await mine.all(joined, { key: KEY })).toEqual([{ own: 'mine', other: 'mine' }]);
    expect(await mine.all(anyOf, { fingerprints: ['mine', 'theirs'] })).toEqual([{ fingerprint: 'mine' }]);
    expect(await mine.run(setStatus, { key: KEY, status: 500 })).toBe(1);
    expect(await theirs.first(byKey, { key: KEY })).toEqual({ fingerprint: 'theirs', status_code: 201 });
    await mine.run(setStatus, { key: KEY, status: 201 });
  });

  it('run in a transaction: its writes roll back with it and commit with it', async () => {
    await expect(
      mine.transaction(async (tx) => {
        await tx.run(insert, { key: 'rolled-back', fingerprint: 'gone' });
        expect(await tx.first(byKey, { key: 'rolled-back' })).toEqual({
          fingerprint: 'gone',
          status_code: 201,
        });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await mine.first(byKey, { key: 'rolled-back' })).toBeUndefined();

    await mine.transaction((tx) => tx.run(insert, { key: 'committed', fingerprint: 'kept' }));
    expect(await mine.first(byKey, { key: 'committed' })).toEqual({ fingerprint: 'kept', status_code: 201 });
  });

  it('run in a deferred transaction, which a compiled write begins', async () => {
    const open = mine.deferredTransaction();
    expect(await open.db.first(byKey, { key: KEY })).toEqual({ fingerprint: 'mine', status_code: 201 });
    expect(open.begun).toBe(false);
    await open.db.run(insert, { key: 'deferred', fingerprint: 'deferred' });
    expect(open.begun).toBe(true);
    await open.rollback();
    expect(await mine.first(byKey, { key: 'deferred' })).toBeUndefined();
  });

  it('refuse a list of another length than the one compiled', async () => {
    await expect(mine.all(anyOf, { fingerprints: ['mine'] })).rejects.toThrow('must have 2 items');
  });

  // On SQLite a compiled read outside a transaction runs at once on the connection when it is free
  // (db/sqlite/driver.ts, readAtOnce); while a transaction holds it, a group is open or a unit
  // waits for it, the read takes its turn and is answered once the group is on disk.
  it('read outside a transaction never see the writes of one still open, which may roll back', async () => {
    let read: Promise<unknown> | undefined;
    await expect(
      mine.transaction(async (tx) => {
        await tx.run(insert, { key: 'open-then-undone', fingerprint: 'undone' });
        read = mine.first(byKey, { key: 'open-then-undone' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await read).toBeUndefined();
  });

  it.skipIf(onPostgres)(
    'on SQLite, read while a group is open are answered once it commits, with its writes',
    async () => {
      let read: Promise<unknown> | undefined;
      let answered = false;
      await mine.transaction(async (tx) => {
        await tx.run(insert, { key: 'open-then-kept', fingerprint: 'kept' });
        read = mine.first(byKey, { key: 'open-then-kept' }).finally(() => {
          answered = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(answered).toBe(false);
      });
      expect(await read).toEqual({ fingerprint: 'kept', status_code: 201 });
    },
  );

  it.skipIf(onPostgres)(
    'on SQLite, read after a write that waits for the connection, and see it',
    async () => {
      const written = mine.run(insert, { key: 'queued-write', fingerprint: 'queued' });
      const read = mine.first(byKey, { key: 'queued-write' });
      expect(await read).toEqual({ fingerprint: 'queued', status_code: 201 });
      expect(await written).toBe(1);
    },
  );
});

// Across tenants: statements of Database.acrossTenants(), which reach every tenant's rows.
const acrossByKey = compiledAcrossTenants((db: Kysely<AcrossTables>, p: { key: string; scope: string }) =>
  db
    .selectFrom('idempotency_keys')
    .select(['tenant_id', 'fingerprint'])
    .where('key', '=', p.key)
    .where('scope', '=', p.scope)
    .orderBy('fingerprint')
    .limit(10),
);

const acrossSetStatus = compiledAcrossTenants(
  (db: Kysely<AcrossTables>, p: { fingerprints: string[]; status: number }) =>
    db
      .updateTable('idempotency_keys')
      .set({ status_code: p.status })
      .where('fingerprint', 'in', p.fingerprints),
  { fingerprints: 2 },
);

describe('compiled statements across tenants', () => {
  it('run with their parameters on every tenant’s rows', async () => {
    const db = database.acrossTenants<AcrossTables>();
    expect(await acrossByKey.all(db, { key: KEY, scope: SCOPE })).toEqual([
      { tenant_id: mine.tenantId, fingerprint: 'mine' },
      { tenant_id: theirs.tenantId, fingerprint: 'theirs' },
    ]);
    expect(await acrossByKey.first(db, { key: 'no-such-key', scope: SCOPE })).toBeUndefined();
    expect(await acrossSetStatus.run(db, { fingerprints: ['mine', 'theirs'], status: 202 })).toBe(2);
    expect(await theirs.first(byKey, { key: KEY })).toEqual({ fingerprint: 'theirs', status_code: 202 });
    await acrossSetStatus.run(db, { fingerprints: ['mine', 'theirs'], status: 201 });
  });

  it('compile to the SQL that the statement built per call runs, its constants included', () => {
    const db = database.acrossTenants<AcrossTables>();
    const perCall = db
      .selectFrom('idempotency_keys')
      .select(['tenant_id', 'fingerprint'])
      .where('key', '=', KEY)
      .where('scope', '=', SCOPE)
      .orderBy('fingerprint')
      .limit(10)
      .compile();
    const query = acrossByKey.query(db, { key: KEY, scope: SCOPE });
    expect(query.sql).toBe(perCall.sql);
    expect(query.parameters).toEqual(perCall.parameters);
    // A named prepared statement on PostgreSQL, as a tenant's compiled statement is.
    expect(compiledStatementName(query.sql)).toMatch(/^tailor_\d+$/);
  });

  it('run in a transaction, on its handle', async () => {
    await expect(
      database
        .acrossTenants<AcrossTables>()
        .transaction()
        .execute(async (trx) => {
          await acrossSetStatus.run(trx, { fingerprints: ['mine', 'theirs'], status: 500 });
          expect(await acrossByKey.all(trx, { key: KEY, scope: SCOPE })).toHaveLength(2);
          throw new Error('roll back');
        }),
    ).rejects.toThrow('roll back');
    expect(await mine.first(byKey, { key: KEY })).toEqual({ fingerprint: 'mine', status_code: 201 });
  });

  it('refuse a missing parameter and a list of another length than the one compiled', async () => {
    const db = database.acrossTenants<AcrossTables>();
    await expect(acrossSetStatus.run(db, { fingerprints: ['mine'], status: 1 })).rejects.toThrow(
      'must have 2 items',
    );
    await expect(acrossByKey.all(db, { key: KEY } as { key: string; scope: string })).rejects.toThrow(
      'no value for parameter scope',
    );
  });
});
