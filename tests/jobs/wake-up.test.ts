import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, type JobHandler } from '../../src/jobs/queue.ts';
import type { Worker } from '../../src/jobs/worker.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

// Every hop of a job chain starts as soon as the job before it commits, not at the next poll. The
// worker here polls every 30 s, so nothing but the wake-up can make these pass within seconds.

const POLL_MS = 30_000;
/** Generous for a loaded machine, and still far below the poll interval. */
const PROMPTLY_MS = 10_000;
const VERSION_EVENTS = ['page.version.created', 'page.version.processed', 'page.version.published'];

declare module '../../src/jobs/queue.ts' {
  interface JobPayloads {
    'test.chain': { n: number; hops: number };
    'test.later': { n: number };
  }
}

const ran: { kind: string; n: number }[] = [];

/** A chain of `hops` jobs, each enqueued in a transaction by the one before. */
const chainHandler: JobHandler<'test.chain'> = {
  kind: 'test.chain',
  async run(job) {
    ran.push({ kind: 'test.chain', n: job.payload.n });
    if (job.payload.n >= job.payload.hops) return;
    const next = { n: job.payload.n + 1, hops: job.payload.hops };
    await job.db.transaction((tx) => enqueue(tx, 'test.chain', next));
  },
};

const laterHandler: JobHandler<'test.later'> = {
  kind: 'test.later',
  async run(job) {
    ran.push({ kind: 'test.later', n: job.payload.n });
  },
};

let server: TestServer;
let worker: Worker;
let client: Client;

beforeAll(async () => {
  server = await startServer();
  worker = server.worker({
    pollMs: POLL_MS,
    handlers: [...server.background().handlers, chainHandler, laterHandler],
  });
  worker.start();
  client = await server.newTenant();
});
afterAll(async () => {
  await worker.stop();
  await server.close();
});

describe('waking workers', () => {
  it('an audience with autoPublish reaches its subscriber as published long before the next poll', async () => {
    const receiver = await startReceiver();
    try {
      const subscription = await client.post('/v0/webhook_subscriptions', { url: receiver.url });
      expect(subscription.status).toBe(201);
      const page = await client.post('/v0/pages', {
        name: 'Launch',
        pageContext: 'Tailor helps retailers grow.',
        brandId: 'b',
        actions: [],
        actionCardWidgets: [],
        scripts: [],
      });
      const audience = await client.post(`/v0/pages/${page.body.pageId}/audiences`, { autoPublish: true });
      expect(audience.status).toBe(201);
      await expect
        .poll(() => receiver.events().map((event) => event.type), { timeout: PROMPTLY_MS, interval: 20 })
        .toEqual(expect.arrayContaining(VERSION_EVENTS));
      const published = receiver.events().find((event) => event.type === 'page.version.published');
      expect(published?.data.audienceId).toBe(audience.body.audienceId);
    } finally {
      await receiver.close();
    }
  });

  it('runs a chain of jobs hop after hop, each as the one before commits', async () => {
    const db = server.database.forTenant(client.tenantId);
    await db.transaction((tx) => enqueue(tx, 'test.chain', { n: 1, hops: 5 }));
    await expect
      .poll(() => ran.filter((run) => run.kind === 'test.chain').map((run) => run.n), {
        timeout: PROMPTLY_MS,
        interval: 20,
      })
      .toEqual([1, 2, 3, 4, 5]);
  });

  it('leaves a job due later to its time, however often the worker is woken', async () => {
    const db = server.database.forTenant(client.tenantId);
    const dueAt = Date.now() + 60_000;
    await enqueue(db, 'test.later', { n: 1 }, { runAt: dueAt });
    await enqueue(db, 'test.later', { n: 2 });
    await expect
      .poll(() => ran.filter((run) => run.kind === 'test.later').map((run) => run.n), {
        timeout: PROMPTLY_MS,
        interval: 20,
      })
      .toEqual([2]);
    await worker.drain(dueAt);
    expect(ran.filter((run) => run.kind === 'test.later').map((run) => run.n)).toEqual([2, 1]);
  });
});
