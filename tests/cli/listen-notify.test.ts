import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { anyTables } from '../helpers/any-tables.ts';
import {
  type Environment,
  freshEnvironment,
  type Spawned,
  spawnTailor,
  startServe,
} from '../helpers/process.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { onPostgres } from '../helpers/server.ts';
import { proxyToDatabase } from '../helpers/tcp-proxy.ts';

// A `tailor serve` node that runs no worker, and `tailor worker` processes that poll only every
// 30 s: what the API node commits reaches them through LISTEN/NOTIFY, at once, or not within the
// test at all.

const API_KEY = 'listen-notify-bootstrap-key-long-enough-1';
const POLL_MS = '30000';
/** Generous for a loaded machine, and still far below the poll interval. */
const PROMPTLY_MS = 10_000;
/** Three `tailor` processes start in a test: slow on a loaded machine. */
const TEST_TIMEOUT_MS = 120_000;
const VERSION_EVENTS = ['page.version.created', 'page.version.processed', 'page.version.published'];

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function environment(): Promise<Environment['env']> {
  const fresh = await freshEnvironment();
  cleanups.push(fresh.drop);
  return {
    ...fresh.env,
    TAILOR_BOOTSTRAP_API_KEY: API_KEY,
    TAILOR_WEBHOOK_ALLOW_PRIVATE: 'true',
    TAILOR_WORKER_POLL_MS: POLL_MS,
  };
}

async function startApi(env: Record<string, string>) {
  const api = await startServe({ ...env, TAILOR_WORKERS: '0' });
  cleanups.push(async () => {
    api.child.kill('SIGTERM');
    await api.exited;
  });
  return api;
}

function startWorker(env: Record<string, string>): Spawned {
  const worker = spawnTailor(['worker'], { ...env, TAILOR_WORKERS: '2' });
  cleanups.push(async () => {
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
  return worker;
}

function inspect(env: Record<string, string>): Database {
  const database = openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: '' });
  cleanups.push(() => database.close());
  return database;
}

/**
 * Sessions listening for jobs that connected after `since`: a worker's listening connection (the
 * API node listens too, for changes of API keys, on a channel of its own).
 */
async function listeners(database: Database, since: Date): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND query = 'LISTEN "tailor_jobs"' AND backend_start > ${since}`.execute(
    anyTables(database),
  );
  return rows[0]?.n ?? 0;
}

/** A subscriber, a page, and a way to create audiences with autoPublish on the API node. */
async function tenantOn(url: string) {
  const receiver = await startReceiver();
  cleanups.push(receiver.close);
  const call = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as T;
  };
  await call('/v0/webhook_subscriptions', { url: receiver.url });
  const page = await call<{ pageId: string }>('/v0/pages', {
    name: 'Launch',
    pageContext: 'Tailor helps retailers grow.',
    brandId: 'b',
    actions: [],
    actionCardWidgets: [],
    scripts: [],
  });
  return {
    receiver,
    createAudience: async (): Promise<string> =>
      (await call<{ audienceId: string }>(`/v0/pages/${page.pageId}/audiences`, { autoPublish: true }))
        .audienceId,
    /** The events of `audienceId` the receiver got, by type. */
    typesFor: (audienceId: string) =>
      receiver
        .events()
        .filter((event) => event.data.audienceId === audienceId)
        .map((event) => event.type)
        .sort(),
  };
}

describe.skipIf(!onPostgres)('workers in other processes hear of jobs through LISTEN/NOTIFY', () => {
  it(
    'run what the API node commits at once, each job once',
    async () => {
      const env = await environment();
      const started = new Date();
      startWorker(env);
      startWorker(env);
      const api = await startApi(env);
      const database = inspect(env);
      await expect.poll(() => listeners(database, started), { timeout: 30_000 }).toBe(2);
      const tenant = await tenantOn(api.url);

      const audiences: string[] = [];
      for (let n = 0; n < 4; n++) {
        const audienceId = await tenant.createAudience();
        audiences.push(audienceId);
        await expect
          .poll(() => tenant.typesFor(audienceId), { timeout: PROMPTLY_MS, interval: 20 })
          .toEqual(VERSION_EVENTS);
      }
      const webhookIds = tenant.receiver.received.map((entry) => entry.headers['webhook-id']);
      expect(new Set(webhookIds).size).toBe(audiences.length * VERSION_EVENTS.length);
      // A delivery is settled just after its receiver answered: wait for the last to be recorded.
      const jobs = () =>
        anyTables(database).selectFrom('jobs').select(['id', 'kind', 'state', 'attempts']).execute();
      await expect
        .poll(async () => (await jobs()).filter((job) => job.state !== 'done'), { timeout: PROMPTLY_MS })
        .toEqual([]);
      expect(await jobs()).toHaveLength(audiences.length * (1 + VERSION_EVENTS.length));
      expect((await jobs()).filter((job) => job.attempts !== 1)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'listen again once the database is back after their connection dropped',
    async () => {
      const env = await environment();
      const { proxy, url } = await proxyToDatabase(env.DATABASE_URL as string);
      cleanups.push(proxy.close);
      startWorker({ ...env, DATABASE_URL: url });
      const api = await startApi(env);
      const database = inspect(env);
      await expect.poll(() => listeners(database, new Date(0)), { timeout: 30_000 }).toBe(1);

      proxy.cut();
      await expect.poll(() => listeners(database, new Date(0)), { timeout: 5_000 }).toBe(0);
      await sleep(1_000);
      const restored = new Date();
      proxy.restore();
      await expect.poll(() => listeners(database, restored), { timeout: 15_000 }).toBe(1);

      const tenant = await tenantOn(api.url);
      const audienceId = await tenant.createAudience();
      await expect
        .poll(() => tenant.typesFor(audienceId), { timeout: PROMPTLY_MS, interval: 20 })
        .toEqual(VERSION_EVENTS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'listen again once the database answers after their connection went silent (issue 21 finding 8)',
    async () => {
      const env = await environment();
      const { proxy, url } = await proxyToDatabase(env.DATABASE_URL as string);
      cleanups.push(proxy.close);
      startWorker({ ...env, DATABASE_URL: url, TAILOR_DB_TIMEOUT_MS: '1000' });
      const api = await startApi(env);
      const database = inspect(env);
      await expect.poll(() => listeners(database, new Date(0)), { timeout: 30_000 }).toBe(1);

      // Nothing is refused or closed: only the heartbeat, unanswered, tells the connection is dead.
      proxy.stall();
      await expect.poll(() => listeners(database, new Date(0)), { timeout: 5_000 }).toBe(0);
      const restored = new Date();
      proxy.restore();
      await expect.poll(() => listeners(database, restored), { timeout: 15_000 }).toBe(1);

      const tenant = await tenantOn(api.url);
      const audienceId = await tenant.createAudience();
      await expect
        .poll(() => tenant.typesFor(audienceId), { timeout: PROMPTLY_MS, interval: 20 })
        .toEqual(VERSION_EVENTS);
    },
    TEST_TIMEOUT_MS,
  );
});
