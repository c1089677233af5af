import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { TenantDb } from '../../src/db/tenant-db.ts';
import { enqueue, type JobHandler, RetryAt } from '../../src/jobs/queue.ts';
import { claimJobs } from '../../src/jobs/store.ts';
import type { ScheduledTask } from '../../src/jobs/types.ts';
import { Worker, type WorkerOptions } from '../../src/jobs/worker.ts';
import { createTenantWithKey } from '../../src/workflows/tenant-setup/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { onPostgres, testDatabase, testDatabaseUrl } from '../helpers/server.ts';

let database: Database;
let tenant: TenantDb;
const silent = { info() {}, warn() {}, error() {} };

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-jobs-'));

beforeAll(async () => {
  database = onPostgres ? await testDatabase() : openDatabase({ databaseUrl: undefined, dataDir });
  await migrateToLatest(database);
  const created = await createTenantWithKey(database, { name: `Jobs ${Math.random()}` });
  tenant = database.forTenant(created.tenantId);
});
afterAll(() => database.close());

function worker(handlers: JobHandler[], options: Partial<WorkerOptions> = {}, on: Database = database) {
  return new Worker({
    database: on,
    handlers,
    schedules: [],
    logger: silent,
    ...options,
  });
}

async function jobRow(id: string) {
  return anyTables(database).selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

declare module '../../src/jobs/queue.ts' {
  interface JobPayloads {
    /** The kinds these tests make up, each with a name of its own, and a payload of its own. */
    [kind: `test.${string}`]: object;
  }
}

const kind = (name: string) => `test.${name}.${Math.random().toString(36).slice(2)}` as const;

describe('jobs', () => {
  it('runs a job once with its payload and tenant, then marks it done', async () => {
    const seen: unknown[] = [];
    const handler: JobHandler = {
      kind: kind('once'),
      async run(job) {
        seen.push([job.payload, job.tenantId, job.attempt]);
      },
    };
    const id = await enqueue(tenant, handler.kind, { hello: 'world' });
    const runner = worker([handler]);
    await runner.drain();
    await runner.drain();
    expect(seen).toEqual([[{ hello: 'world' }, tenant.tenantId, 1]]);
    expect(await jobRow(id)).toMatchObject({ state: 'done', locked_by: null });
  });

  it('does not run a job before its time', async () => {
    let runs = 0;
    const handler: JobHandler = {
      kind: kind('later'),
      async run() {
        runs++;
      },
    };
    await enqueue(tenant, handler.kind, {}, { runAt: Date.now() + 60_000 });
    const runner = worker([handler]);
    await runner.drain();
    expect(runs).toBe(0);
    await runner.drain(Date.now() + 61_000);
    expect(runs).toBe(1);
  });

  it('retries a failing job after its delay, then gives up after the last attempt', async () => {
    const attempts: number[] = [];
    const gaveUp: string[] = [];
    const handler: JobHandler = {
      kind: kind('failing'),
      retryDelayMs: (attempt) => attempt * 1000,
      async run(job) {
        attempts.push(job.attempt);
        throw new Error(`boom ${job.attempt}`);
      },
      async onGiveUp(job, _context, error) {
        gaveUp.push(`${job.id}: ${error.message}`);
      },
    };
    const id = await enqueue(tenant, handler.kind, {}, { maxAttempts: 3 });
    const runner = worker([handler]);
    await runner.drain();
    const afterFirst = await jobRow(id);
    expect(afterFirst).toMatchObject({ state: 'queued', attempts: 1, last_error: 'boom 1' });
    expect(afterFirst.run_at).toBeGreaterThan(Date.now() + 500);
    await runner.drain();
    expect(attempts).toEqual([1]);
    await runner.drain(Date.now() + 1_500);
    await runner.drain(Date.now() + 10_000);
    await runner.drain(Date.now() + 20_000);
    expect(attempts).toEqual([1, 2, 3]);
    expect(gaveUp).toEqual([`${id}: boom 3`]);
    expect(await jobRow(id)).toMatchObject({ state: 'failed', last_error: 'boom 3' });
  });

  it('honours a RetryAt from the handler', async () => {
    const at = Date.now() + 42_000;
    const handler: JobHandler = {
      kind: kind('retry-at'),
      async run() {
        throw new RetryAt(at, 'come back later');
      },
    };
    const id = await enqueue(tenant, handler.kind, {});
    await worker([handler]).drain();
    expect(await jobRow(id)).toMatchObject({ state: 'queued', run_at: at });
  });

  it('takes over a job whose worker died once its lease ran out', async () => {
    let runs = 0;
    const handler: JobHandler = {
      kind: kind('orphan'),
      async run() {
        runs++;
      },
    };
    const id = await enqueue(tenant, handler.kind, {});
    const now = Date.now();
    const claimed = await claimJobs(anyTables(database), database.locks, 'worker_dead', 100, now, 5_000);
    expect(claimed.map((job) => job.id)).toContain(id);
    const runner = worker([handler]);
    await runner.drain(now + 1_000);
    expect(runs).toBe(0);
    await runner.drain(now + 6_000);
    expect(runs).toBe(1);
    expect(await jobRow(id)).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('leases a job for 10 s by default, so a crashed worker’s job runs again within 15 s', async () => {
    let release = () => {};
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler: JobHandler = {
      kind: kind('leased'),
      run: () =>
        new Promise<void>((resolve) => {
          release = resolve;
          started();
        }),
    };
    const id = await enqueue(tenant, handler.kind, {});
    const runner = worker([handler], { pollMs: 10 });
    const before = Date.now();
    runner.start();
    await running;
    const row = await jobRow(id);
    expect(row.state).toBe('running');
    expect(Number(row.locked_until) - before).toBeGreaterThan(9_000);
    expect(Number(row.locked_until) - Date.now()).toBeLessThanOrEqual(10_000);
    release();
    await runner.stop();
  });

  it('two workers on their own connections never run the same job twice', async () => {
    const other = await secondConnection();
    const handlerKind = kind('shared');
    const runs = new Map<string, number>();
    let active = 0;
    let overlap = false;
    const handler: JobHandler = {
      kind: handlerKind,
      async run(job) {
        active++;
        if (runs.has(job.id)) overlap = true;
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 2));
        active--;
      },
    };
    const ids = [];
    for (let n = 0; n < 40; n++) ids.push(await enqueue(tenant, handlerKind, { n }));
    const first = worker([handler], { concurrency: 4, pollMs: 10 });
    const second = worker([handler], { concurrency: 4, pollMs: 10 }, other);
    first.start();
    second.start();
    for (let i = 0; i < 200 && runs.size < ids.length; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    await Promise.all([first.stop(), second.stop()]);
    await other.close();
    expect(overlap).toBe(false);
    expect(active).toBe(0);
    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it('runs a scheduled task once per period across workers', async () => {
    const other = await secondConnection();
    const ran: number[] = [];
    const task: ScheduledTask = {
      name: kind('sweep'),
      everyMs: 60_000,
      async run({ now }) {
        ran.push(now);
      },
    };
    const a = new Worker({
      database,
      handlers: [],
      schedules: [task],
      logger: silent,
    });
    const b = new Worker({
      database: other,
      handlers: [],
      schedules: [task],
      logger: silent,
    });
    const now = Date.now();
    await Promise.all([a.drain(now), b.drain(now)]);
    await Promise.all([a.drain(now + 1_000), b.drain(now + 1_000)]);
    expect(ran).toHaveLength(1);
    await Promise.all([a.drain(now + 61_000), b.drain(now + 61_000)]);
    expect(ran).toHaveLength(2);
    await other.close();
  });
});

describe('scheduled tasks a database has no work for', () => {
  it('are left out: the row counts are folded on PostgreSQL only, where changes are appended', async () => {
    const ran: string[] = [];
    const task = (name: string, neededOn?: ScheduledTask['neededOn']): ScheduledTask => ({
      name: kind(name),
      everyMs: 60_000,
      neededOn,
      async run() {
        ran.push(name);
      },
    });
    await worker([], {
      schedules: [
        task('always'),
        task('never', () => false),
        task('appended', (on) => on.appendsRowCountChanges),
      ],
    }).drain();
    expect(ran.sort()).toEqual(onPostgres ? ['always', 'appended'] : ['always']);
  });
});

/** Another connection (pool) to the same database, as another process would have. */
async function secondConnection(): Promise<Database> {
  return openDatabase({ databaseUrl: onPostgres ? await testDatabaseUrl() : undefined, dataDir });
}
