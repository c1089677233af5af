import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDb } from '../../src/db/tenant-db.ts';
import type { IdempotencyKeysTable } from '../../src/http/idempotency-store.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { type Client, onPostgres, startServer, type TestServer } from '../helpers/server.ts';
import { webhookFixtures } from '../helpers/webhooks.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const { receiver, subscribe } = webhookFixtures();

/** The tenant's kept answers, read from the database. */
function keys(): TenantDb<{ idempotency_keys: IdempotencyKeysTable }> {
  return server.database.forTenant(api.tenantId);
}

function keptRow(key: string) {
  return keys().selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
}

/** PostgreSQL sessions of the test database that hold a transaction open without running a statement. */
async function idleInTransaction(): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(
    anyTables(server.database),
  );
  return rows[0]?.n ?? 0;
}

describe('Idempotency-Key', () => {
  it('replays the first response to a retry with the same body', async () => {
    const first = await api.post('/v0/persons', { name: 'Once' }, withKey('create-once'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await api.post('/v0/persons', { name: 'Once' }, withKey('create-once'));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    const all = await api.get('/v0/persons?limit=100');
    expect(all.body.items.filter((p: { name: string }) => p.name === 'Once')).toHaveLength(1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const first = await api.post(
      '/v0/persons',
      { name: 'Order', phoneNumber: '+15551234567' },
      withKey('order'),
    );
    const retry = await api.post(
      '/v0/persons',
      { phoneNumber: '+15551234567', name: 'Order' },
      withKey('order'),
    );
    expect(retry.body.personId).toBe(first.body.personId);
  });

  it('422 idempotency_key_reused for the same key with another body', async () => {
    await api.post('/v0/persons', { name: 'First body' }, withKey('reused'));
    const response = await api.post('/v0/persons', { name: 'Second body' }, withKey('reused'));
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('idempotency_key_reused');
  });

  it('422 for the same key on another endpoint', async () => {
    await api.post('/v0/persons', { name: 'Endpoint' }, withKey('endpoint'));
    const response = await api.post('/v0/accounts', { domain: 'endpoint.example' }, withKey('endpoint'));
    expect(response.status).toBe(422);
  });

  it('replays an error answer too, but not a validation failure', async () => {
    await api.post('/v0/accounts', { domain: 'conflicting.example' });
    const first = await api.post(
      '/v0/accounts',
      { domain: 'conflicting.example' },
      withKey('conflict-replay'),
    );
    expect(first.status).toBe(409);
    const retry = await api.post(
      '/v0/accounts',
      { domain: 'conflicting.example' },
      withKey('conflict-replay'),
    );
    expect(retry.status).toBe(409);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');

    const invalid = await api.post('/v0/persons', { name: '' }, withKey('fix-and-retry'));
    expect(invalid.status).toBe(400);
    const fixed = await api.post('/v0/persons', { name: 'Fixed' }, withKey('fix-and-retry'));
    expect(fixed.status).toBe(201);
  });

  it('two concurrent first uses create one object', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api.post('/v0/persons', { name: 'Racer' }, withKey('race'))),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.personId)).size).toBe(1);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('conflict');
    }
    const all = await api.get('/v0/persons?limit=100');
    expect(all.body.items.filter((p: { name: string }) => p.name === 'Racer')).toHaveLength(1);
  });

  it('keys are per tenant', async () => {
    const other = await server.newTenant();
    const mine = await api.post('/v0/persons', { name: 'Tenant key' }, withKey('per-tenant'));
    const theirs = await other.post('/v0/persons', { name: 'Tenant key' }, withKey('per-tenant'));
    expect(theirs.status).toBe(201);
    expect(theirs.body.personId).not.toBe(mine.body.personId);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('400 for a key over 255 characters', async () => {
    const response = await api.post('/v0/persons', { name: 'Long key' }, withKey('k'.repeat(256)));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('/headers/idempotency-key');
  });

  it('applies to POST only: a PATCH with a key runs every time', async () => {
    const person = (await api.post('/v0/persons', { name: 'Patched' })).body;
    const first = await api.patch(`/v0/persons/${person.personId}`, { name: 'One' }, withKey('patch'));
    const second = await api.patch(`/v0/persons/${person.personId}`, { name: 'Two' }, withKey('patch'));
    expect(first.body.name).toBe('One');
    expect(second.body.name).toBe('Two');
  });

  it('keyed creates racing for one email: one is made, the other is 409, never a 500, and each replays', async () => {
    // Pairs share an email: on PostgreSQL both creates of a pair may get past the check, and one
    // insert then fails on the unique key inside its request's transaction (that a nested
    // transaction runs again from its savepoint is shown in tests/db/transactions.test.ts).
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api.post(
          '/v0/persons',
          { name: `Twin ${i}`, email: `twin${Math.floor(i / 2)}@nested.example` },
          withKey(`twin-${i}`),
        ),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(10);
    const replays = await Promise.all(
      answers.map((_, i) =>
        api.post(
          '/v0/persons',
          { name: `Twin ${i}`, email: `twin${Math.floor(i / 2)}@nested.example` },
          withKey(`twin-${i}`),
        ),
      ),
    );
    expect(replays.map((replay) => replay.status)).toEqual(statuses);
    expect(replays.map((replay) => replay.body)).toEqual(answers.map((answer) => answer.body));
  });
});

describe('secrets in kept answers', () => {
  const masked = (secret: string) => `whsec_${'*'.repeat(secret.length - 'whsec_'.length)}`;

  it('a replayed webhook subscription create shows its secret masked, and no kept answer holds it', async () => {
    const body = { url: 'http://127.0.0.1:9/hooks/masked', events: [] };
    const first = await api.post('/v0/webhook_subscriptions', body, withKey('webhook-create'));
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const retry = await api.post('/v0/webhook_subscriptions', body, withKey('webhook-create'));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.body).toEqual({ ...first.body, secret: masked(first.body.secret) });

    const row = await keptRow('webhook-create');
    expect(JSON.parse(row.response_body ?? '')).toEqual({ ...first.body, secret: masked(first.body.secret) });
    const secretBytes = first.body.secret.slice('whsec_'.length);
    const holding = await keys()
      .selectFrom('idempotency_keys')
      .select('key')
      .where((eb) =>
        eb.or([
          eb('response_body', 'like', `%${secretBytes}%`),
          eb('response_headers', 'like', `%${secretBytes}%`),
        ]),
      )
      .execute();
    expect(holding).toEqual([]);
  });

  it('so does a replayed secret rotation', async () => {
    const { subscriptionId } = (
      await api.post('/v0/webhook_subscriptions', { url: 'http://127.0.0.1:9/hooks/rotated', events: [] })
    ).body;
    const path = `/v0/webhook_subscriptions/${subscriptionId}/rotate_secret`;
    const first = await api.post(path, {}, withKey('webhook-rotate'));
    expect(first.status).toBe(200);
    const retry = await api.post(path, {}, withKey('webhook-rotate'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual({ ...first.body, secret: masked(first.body.secret) });
    expect((await keptRow('webhook-rotate')).response_body).not.toContain(first.body.secret.slice(6));
  });
});

describe('the transaction of a keyed request', () => {
  it('is not open while the request waits on another service', async () => {
    const slow = await receiver(() => ({ status: 204, delayMs: 3_000 }));
    const { subscriptionId } = await subscribe(api, { url: slow.url, events: [] });
    let tested = false;
    const test = api
      .post(`/v0/webhook_subscriptions/${subscriptionId}/test`, {}, withKey('slow-test'))
      .finally(() => {
        tested = true;
      });
    await expect.poll(() => slow.received.length, { timeout: 10_000 }).toBe(1);

    // The test send has read its subscription and waits on the receiver: SQLite's one writer is
    // free for other writes, and no PostgreSQL connection sits in a transaction.
    const meanwhile = await api.post('/v0/persons', { name: 'Meanwhile' }, withKey('meanwhile'));
    expect(meanwhile.status).toBe(201);
    if (onPostgres) expect(await idleInTransaction()).toBe(0);
    expect(tested).toBe(false);

    const answer = await test;
    expect(answer.status).toBe(200);
    expect(answer.body.state).toBe('succeeded');
  });

  it('keeps its claim alive while it runs, and commits nothing once a retry has taken the claim over', async () => {
    const slow = await receiver(() => ({ status: 204, delayMs: 6_000 }));
    const { subscriptionId } = await subscribe(api, { url: slow.url, events: [] });
    const test = api.post(`/v0/webhook_subscriptions/${subscriptionId}/test`, {}, withKey('taken-over'));
    await expect.poll(() => slow.received.length, { timeout: 10_000 }).toBe(1);
    const claimed = await keptRow('taken-over');
    expect(claimed.status_code).toBeNull();
    await expect
      .poll(async () => (await keptRow('taken-over')).locked_at, { timeout: 5_000 })
      .toBeGreaterThan(claimed.locked_at);

    // What a retry does when it finds the claim abandoned (its holder stalled past the window).
    await keys()
      .updateTable('idempotency_keys')
      .set({ claim_token: 'a-retry-took-it-over' })
      .where('key', '=', 'taken-over')
      .execute();
    const answer = await test;
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('conflict');
    expect(answer.headers.get('location')).toBeNull();
    const deliveries = await api.get(`/v0/webhook_subscriptions/${subscriptionId}/deliveries`);
    expect(deliveries.body.items).toEqual([]);
    expect((await keptRow('taken-over')).status_code).toBeNull();
  });
});
