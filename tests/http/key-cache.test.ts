import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import type { Caller } from '../../src/http/auth.ts';
import { KeyCache } from '../../src/resources/api-keys/cache.ts';
import { issueKey, revoke } from '../../src/resources/api-keys/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { Client, onPostgres, startServer, type TestServer, testDatabaseUrl } from '../helpers/server.ts';

// API keys are kept in memory by hash (resources/api-keys/cache.ts); what must not change is that a
// key revoked anywhere is refused on every node's next request. The two nodes here are two servers
// on two connections to one database; tests/cli/consistency.test.ts does the same with processes.

/** Counts the statements that read or write api_keys through the database it is plugged into. */
class KeyReads implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    const text = JSON.stringify(args.node, (_, value) => (typeof value === 'bigint' ? String(value) : value));
    if (text.includes('"name":"api_keys"')) this.count += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    return args.result;
  }
}

/** Two connections (two pools on PostgreSQL) to one database: what two nodes have. */
async function oneDatabaseTwice(): Promise<[Database, Database]> {
  if (onPostgres) {
    const databaseUrl = await testDatabaseUrl();
    return [openDatabase({ databaseUrl, dataDir: '' }), openDatabase({ databaseUrl, dataDir: '' })];
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-test-'));
  return [
    openDatabase({ databaseUrl: undefined, dataDir }),
    openDatabase({ databaseUrl: undefined, dataDir }),
  ];
}

let databases: [Database, Database];
let first: TestServer;
let second: TestServer;
let api: Client;
const reads = new KeyReads();

beforeAll(async () => {
  databases = await oneDatabaseTwice();
  first = await startServer({ database: databases[0].withPlugin(reads) });
  second = await startServer({ database: databases[1] });
  api = await first.newTenant();
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
  await Promise.all(databases.map((database) => database.close()));
});

/** Status of GET /v0/persons with `apiKey` on `server`. */
async function statusOf(server: TestServer, apiKey: string): Promise<number> {
  return (await new Client(server.url, apiKey, api.tenantId).get('/v0/persons')).status;
}

/** Waits until the first node answers `apiKey` from memory (on PostgreSQL, once it listens for changes). */
async function cachedOnFirst(apiKey: string): Promise<void> {
  await expect
    .poll(async () => {
      const before = reads.count;
      expect(await statusOf(first, apiKey)).toBe(200);
      return reads.count - before;
    })
    .toBe(0);
}

describe('API key cache', () => {
  it('reads a known key from the database once, not per request', async () => {
    const key = await issueKey(anyTables(databases[1]), api.tenantId);
    const before = reads.count;
    expect(await statusOf(first, key.apiKey)).toBe(200);
    expect(reads.count - before).toBeLessThanOrEqual(1);
    await cachedOnFirst(key.apiKey);
  });

  it('refuses a key revoked through another node on the next request, on both nodes', async () => {
    const key = await issueKey(anyTables(databases[0]), api.tenantId);
    await cachedOnFirst(key.apiKey);
    expect(await statusOf(second, key.apiKey)).toBe(200);
    expect(await statusOf(second, key.apiKey)).toBe(200);

    await revoke(anyTables(databases[1]), key.keyId);
    expect(await statusOf(first, key.apiKey)).toBe(401);
    expect(await statusOf(second, key.apiKey)).toBe(401);
  });

  it('refuses a key revoked on another node between two turns, after requests of one turn shared a check', async () => {
    const key = await issueKey(anyTables(databases[0]), api.tenantId);
    await cachedOnFirst(key.apiKey);
    const together = await Promise.all(Array.from({ length: 10 }, () => statusOf(first, key.apiKey)));
    expect(together.every((status) => status === 200)).toBe(true);
    await revoke(anyTables(databases[1]), key.keyId);
    expect(await statusOf(first, key.apiKey)).toBe(401);
  });

  it('takes a key created through another node at once', async () => {
    await cachedOnFirst(api.apiKey as string);
    const key = await issueKey(anyTables(databases[1]), api.tenantId);
    expect(await statusOf(first, key.apiKey)).toBe(200);
  });

  it('refuses each of many keys revoked through another node on the very next request', async () => {
    for (let i = 0; i < 10; i++) {
      const key = await issueKey(anyTables(databases[0]), api.tenantId);
      await cachedOnFirst(key.apiKey);
      await revoke(anyTables(databases[1]), key.keyId);
      expect(await statusOf(first, key.apiKey)).toBe(401);
    }
  });

  it.runIf(onPostgres)('counts every notice committed before its catching up began', async () => {
    const watch = databases[0].watchChanges('api_keys');
    try {
      // Listening once the number holds still between two calls.
      await expect
        .poll(() => {
          const first = watch.version();
          return watch.version() - first;
        })
        .toBe(0);
      const admin = new pg.Client({ connectionString: await testDatabaseUrl() });
      await admin.connect();
      try {
        for (let i = 0; i < 20; i++) {
          const before = watch.version();
          await admin.query("SELECT pg_notify('tailor_api_keys', '')");
          await watch.caughtUp?.();
          expect(watch.latest()).toBeGreaterThan(before);
        }
      } finally {
        await admin.end();
      }
    } finally {
      await watch.close();
    }
  });

  it.runIf(onPostgres)(
    'catches up one round trip at a time, each call answered after a notice sent before it',
    async () => {
      const watch = databases[0].watchChanges('api_keys');
      // pg 8 queues a query sent while another is under way on its connection, and pg 9 refuses it.
      const underWay = new Map<pg.Client, number>();
      let mostAtOnce = 0;
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const answer = (query as (...a: unknown[]) => unknown).apply(this, args);
        if (!(answer instanceof Promise)) return answer;
        underWay.set(this, (underWay.get(this) ?? 0) + 1);
        mostAtOnce = Math.max(mostAtOnce, underWay.get(this) ?? 0);
        const done = () => underWay.set(this, (underWay.get(this) ?? 1) - 1);
        answer.then(done, done);
        return answer;
      } as typeof query;
      try {
        await expect.poll(() => watch.version() - watch.version()).toBe(0);
        const admin = new pg.Client({ connectionString: await testDatabaseUrl() });
        await admin.connect();
        try {
          const before = watch.version();
          await admin.query("SELECT pg_notify('tailor_api_keys', '')");
          mostAtOnce = 0;
          // One call a turn (a turn's calls share one), each made while earlier round trips are under way.
          const calls = [];
          for (let i = 0; i < 10; i++) {
            calls.push(watch.caughtUp?.().then(() => watch.latest() > before));
            await new Promise(setImmediate);
          }
          expect(await Promise.all(calls)).toEqual(Array(10).fill(true));
          expect(mostAtOnce).toBe(1);
        } finally {
          await admin.end();
        }
      } finally {
        pg.Client.prototype.query = query;
        await watch.close();
      }
    },
  );

  it.runIf(onPostgres)('forgets every key when its LISTEN connection drops', async () => {
    const key = await issueKey(anyTables(databases[0]), api.tenantId);
    await cachedOnFirst(key.apiKey);
    // Revoked without a notice (replica mode fires no trigger): only a dropped listener can tell.
    const admin = new pg.Client({ connectionString: await testDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('SET LOCAL session_replication_role = replica');
      await admin.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [Date.now(), key.keyId]);
      await admin.query('COMMIT');
      expect(await statusOf(first, key.apiKey)).toBe(200);
      const dropped = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND query = 'LISTEN "tailor_api_keys"'`,
      );
      expect(dropped.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    // Well within the minute an entry is trusted at most.
    await expect.poll(() => statusOf(first, key.apiKey), { timeout: 5_000 }).toBe(401);
  });
});

describe('KeyCache', () => {
  const caller = (keyId: string): Caller => ({ tenantId: 'ten_1', keyId, readOnly: false });
  const unchanged = { version: () => 0, latest: () => 0 };

  it('holds at most its capacity, however many keys it is asked for', async () => {
    const cache = new KeyCache(unchanged, { capacity: 100 });
    for (let i = 0; i < 1_000; i++) await cache.get(`hash-${i}`, async () => caller(`key_${i}`));
    expect(cache.size).toBe(100);
    // The most recently used stay.
    let reads = 0;
    await cache.get('hash-999', async () => {
      reads++;
      return caller('key_999');
    });
    expect(reads).toBe(0);
  });

  it('keeps no key it did not find', async () => {
    const cache = new KeyCache(unchanged);
    for (let i = 0; i < 1_000; i++)
      expect(await cache.get(`guess-${i}`, async () => undefined)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('reads a key again once it is older than the longest it is trusted', async () => {
    let now = 0;
    const cache = new KeyCache(unchanged, { maxAgeMs: 1_000, now: () => now });
    let reads = 0;
    const read = async () => {
      reads++;
      return caller('key_1');
    };
    await cache.get('hash', read);
    now = 999;
    await cache.get('hash', read);
    expect(reads).toBe(1);
    now = 1_000;
    await cache.get('hash', read);
    expect(reads).toBe(2);
  });

  it('forgets every key when the keys changed, and keeps no read that a change overtook', async () => {
    let version = 0;
    const cache = new KeyCache({ version: () => version, latest: () => version });
    await cache.get('a', async () => caller('key_a'));
    await cache.get('b', async () => {
      version++;
      return caller('key_b');
    });
    expect(cache.size).toBe(0);
    await cache.get('a', async () => caller('key_a'));
    expect(cache.size).toBe(1);
    version++;
    let reads = 0;
    await cache.get('a', async () => {
      reads++;
      return caller('key_a');
    });
    expect(reads).toBe(1);
  });

  it('takes nothing from memory before the changes have caught up with what was committed', async () => {
    // A notice that reaches the count only during the catching up, as PostgreSQL's may.
    let version = 0;
    let noticePending = false;
    const cache = new KeyCache({
      version: () => version,
      latest: () => version,
      caughtUp: async () => {
        if (noticePending) version++;
        noticePending = false;
      },
    });
    await cache.get('a', async () => caller('key_a'));
    noticePending = true;
    expect(await cache.get('a', async () => undefined)).toBeUndefined();
  });
});
