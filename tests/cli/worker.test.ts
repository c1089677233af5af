import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.ts';
import { GENERATE_JOB } from '../../src/workflows/audience-versions/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { type Environment, freePort, freshEnvironment, spawnTailor, startServe } from '../helpers/process.ts';
import { TEST_SECRET } from '../helpers/server.ts';

let environment: Environment | undefined;
afterEach(async () => {
  await environment?.drop();
  environment = undefined;
});

const AUDIENCES = 24;

async function seedAudiences(url: string, apiKey: string): Promise<void> {
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const page = await fetch(`${url}/v0/pages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'P',
      pageContext: 'C.',
      brandId: 'b',
      actions: [],
      actionCardWidgets: [],
      scripts: [],
    }),
  }).then((response) => response.json() as Promise<{ pageId: string }>);
  for (let i = 0; i < AUDIENCES; i++) {
    const response = await fetch(`${url}/v0/pages/${page.pageId}/audiences`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    expect(response.status).toBe(201);
  }
}

describe('tailor worker', () => {
  it('two worker processes on one database run every job exactly once', async () => {
    environment = await freshEnvironment();
    const apiKey = 'two-workers-bootstrap-key-long-enough-01';
    const env: Record<string, string> = { ...environment.env, TAILOR_BOOTSTRAP_API_KEY: apiKey };
    const api = await startServe({ ...env, TAILOR_WORKERS: '0' });
    await seedAudiences(api.url, apiKey);
    api.child.kill('SIGTERM');
    await api.exited;

    const workers = [1, 2].map(() =>
      spawnTailor(['worker'], { ...env, TAILOR_WORKERS: '4', LOG_LEVEL: 'info' }),
    );
    const database = openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TAILOR_DATA_DIR as string });
    try {
      let jobs: { state: string; attempts: number; locked_by: string | null }[] = [];
      for (let i = 0; i < 300; i++) {
        jobs = await anyTables(database)
          .selectFrom('jobs')
          .select(['state', 'attempts', 'locked_by'])
          .where('kind', '=', GENERATE_JOB)
          .execute();
        if (jobs.length === AUDIENCES && jobs.every((job) => job.state === 'done')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(jobs).toHaveLength(AUDIENCES);
      expect(jobs.every((job) => job.state === 'done' && job.attempts === 1)).toBe(true);
      const states = await anyTables(database)
        .selectFrom('audience_versions')
        .select(['state'])
        .where('version_number', '=', 1)
        .execute();
      expect(states.map((row) => row.state)).toEqual(Array(AUDIENCES).fill('draft'));
      // A worker still loading its modules has no signal handler yet: both must have started.
      for (const worker of workers) {
        await expect.poll(() => worker.output(), { timeout: 15_000 }).toContain('worker started');
      }
      for (const worker of workers) worker.child.kill('SIGTERM');
      expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0]);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await database.close();
    }
  });

  it.each(['worker', 'serve'])(
    'tailor %s told to stop while it still waits for its database exits 0 at once',
    async (command) => {
      // A PostgreSQL address where nothing listens: the node waits for it, retrying every second.
      const closed = `postgres://postgres@127.0.0.1:${await freePort()}/test`;
      const node = spawnTailor([command], {
        DATABASE_URL: closed,
        TAILOR_SECRET: TEST_SECRET,
        PORT: String(await freePort()),
        LOG_LEVEL: 'info',
      });
      await expect.poll(() => node.output(), { timeout: 15_000 }).toContain('waiting for it');
      node.child.kill('SIGTERM');
      expect(await node.exited).toBe(0);
      expect(node.output()).toContain('stopped while starting');
    },
    30_000,
  );
});
