import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { TenantDb } from '../../src/db/tenant-db.ts';
import type { IdempotencyKeysTable } from '../../src/http/idempotency-store.ts';
import { createTenantWithKey } from '../../src/workflows/tenant-setup/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { testDatabase } from '../helpers/server.ts';

// idempotency_keys is keyed by (tenant_id, scope, key): both tenants hold a row with the same key,
// the collision that a query scoped on its first table alone would let a join or subquery cross.
const KEY = 'colliding-key';

type Tables = { idempotency_keys: IdempotencyKeysTable };

let database: Database;
let mine: TenantDb<Tables>;
let theirs: TenantDb<Tables>;

async function keep(db: TenantDb<Tables>, fingerprint: string): Promise<void> {
  await db
    .insertInto('idempotency_keys', {
      scope: 'POST /v0/persons',
      key: KEY,
      fingerprint,
      status_code: 201,
      locked_at: 0,
      expires_at: Date.now() + 60_000,
    })
    .execute();
}

beforeAll(async () => {
  database = await testDatabase();
  await migrateToLatest(database);
  const first = await createTenantWithKey(database, { name: 'Mine', slug: `mine-${Date.now()}` });
  const second = await createTenantWithKey(database, { name: 'Theirs', slug: `theirs-${Date.now()}` });
  mine = database.forTenant(first.tenantId);
  theirs = database.forTenant(second.tenantId);
  await keep(mine, 'mine');
  await keep(theirs, 'theirs');
});
afterAll(() => database.close());

describe('tenant scoping', () => {
  it('limits a joined table to the tenant, whatever ids collide', async () => {
    const rows = await mine
      .selectFrom('idempotency_keys')
      .innerJoin('idempotency_keys as other', 'other.key', 'idempotency_keys.key')
      .select(['idempotency_keys.fingerprint as own', 'other.fingerprint as other'])
      .execute();
    expect(rows).toEqual([{ own: 'mine', other: 'mine' }]);
  });

  it('keeps an outer join outer: an unmatched row joins nothing of another tenant', async () => {
    const rows = await mine
      .selectFrom('idempotency_keys')
      .leftJoin('idempotency_keys as other', (join) =>
        join.onRef('other.key', '=', 'idempotency_keys.key').on('other.fingerprint', '=', 'theirs'),
      )
      .select(['idempotency_keys.fingerprint as own', 'other.fingerprint as other'])
      .execute();
    expect(rows).toEqual([{ own: 'mine', other: null }]);
  });

  it('limits subqueries in selections and conditions to the tenant', async () => {
    const selected = await mine
      .selectFrom('idempotency_keys')
      .select((eb) =>
        eb
          .selectFrom('idempotency_keys as other')
          .select('other.fingerprint')
          .where('other.fingerprint', '=', 'theirs')
          .as('found'),
      )
      .execute();
    expect(selected).toEqual([{ found: null }]);
    const matched = await mine
      .selectFrom('idempotency_keys')
      .select('fingerprint')
      .where('fingerprint', 'in', (eb) =>
        eb.selectFrom('idempotency_keys as other').select('other.fingerprint'),
      )
      .execute();
    expect(matched).toEqual([{ fingerprint: 'mine' }]);
  });

  it('updates and deletes only the tenant’s rows', async () => {
    await mine.updateTable('idempotency_keys').set({ status_code: 500 }).where('key', '=', KEY).execute();
    await mine.deleteFrom('idempotency_keys').where('fingerprint', '=', 'theirs').execute();
    const row = await theirs
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'status_code'])
      .executeTakeFirst();
    expect(row).toEqual({ fingerprint: 'theirs', status_code: 201 });
  });

  it('scopes statements inside a transaction the same way', async () => {
    const fingerprints = await mine.transaction((tx) =>
      tx.selectFrom('idempotency_keys').select('fingerprint').where('key', '=', KEY).execute(),
    );
    expect(fingerprints).toEqual([{ fingerprint: 'mine' }]);
  });

  it('leaves the cross-tenant handle unscoped, for the work that belongs to no tenant', async () => {
    const rows = await anyTables(database)
      .selectFrom('idempotency_keys')
      .select('fingerprint')
      .where('key', '=', KEY)
      .orderBy('fingerprint')
      .execute();
    expect(rows).toEqual([{ fingerprint: 'mine' }, { fingerprint: 'theirs' }]);
  });
});

describe('the tenant handles a Database keeps', () => {
  it('serves a tenant one handle, keeping at most 1,024, the first made going first', async () => {
    const first = database.forTenant('tenant_kept_0');
    expect(database.forTenant('tenant_kept_0')).toBe(first);
    for (let i = 1; i < 1024; i++) database.forTenant(`tenant_kept_${i}`);
    const second = database.forTenant('tenant_kept_1');
    expect(database.forTenant('tenant_kept_0')).toBe(first);
    database.forTenant('tenant_kept_1024');
    expect(database.forTenant('tenant_kept_0')).not.toBe(first);
    expect(database.forTenant('tenant_kept_1')).not.toBe(second);
  });
});
