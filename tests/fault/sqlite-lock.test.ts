import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteFile } from '../../src/db/connection.ts';
import { startServe } from '../helpers/process.ts';
import { onPostgres } from '../helpers/server.ts';
import {
  type Answer,
  afterTest,
  call,
  expectReadBack,
  faultEnvironment,
  isSuccess,
  publishSite,
  report,
  settleJobs,
  startLoad,
} from './support.ts';

// Issue 37, item 3: SQLite's write lock held by another process (the CLI, a worker, an operator's
// sqlite3) used to be waited for on the event loop: an 8 s lock gave /healthz 7.62 s, and writes
// answered 201 at 7.8 s, past the 5 s database timeout.

/** How long the other process holds the write lock. */
const HOLD_MS = 8_000;
/** TAILOR_DB_TIMEOUT_MS: the default, the limit docs/configuration.md states. */
const DB_TIMEOUT_MS = 5_000;
/** A write is answered within the timeout and this much more (a loaded machine's scheduling). */
const ANSWER_SLACK_MS = 1_500;
/** /healthz and the public page, asked every 100 ms while the lock is held, each answer within this. */
const QUICK_ANSWER_MS = 1_000;

/** Asks `path` of `url` every 100 ms until stopped; answers what each took. */
function pollWhile(url: string, stop: { stopped: boolean }): Promise<Answer[]> {
  const answers: Answer[] = [];
  return (async () => {
    while (!stop.stopped) {
      answers.push(await call(url, 'GET', ''));
      await sleep(100);
    }
    return answers;
  })();
}

const took = (answer: Answer) => answer.endedAt - answer.startedAt;

describe.skipIf(onPostgres)('SQLite write lock held by another process', () => {
  it('is waited for off the event loop: /healthz and pages stay quick, writes answer 503 + Retry-After by the timeout, nothing acknowledged is lost', async () => {
    const { env, inspect } = await faultEnvironment({ TAILOR_DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) });
    const server = await startServe(env);
    afterTest(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
    });
    const site = await publishSite(server.url);
    const load = startLoad({ targets: () => [server.url], site, writes: ['person', 'session', 'form'] });
    await sleep(500);

    const holder = new SQLite(sqliteFile(env.TAILOR_DATA_DIR as string));
    afterTest(async () => holder.close());
    holder.exec('BEGIN IMMEDIATE');
    const lockedAt = Date.now();
    const stop = { stopped: false };
    const polls = Promise.all([
      pollWhile(`${server.url}/healthz`, stop),
      pollWhile(`${server.pagesUrl}/p/default/fault`, stop),
    ]);
    await sleep(HOLD_MS);
    holder.exec('COMMIT');
    const releasedAt = Date.now();
    stop.stopped = true;
    const [health, pages] = await polls;
    await sleep(1_000);
    await load.stop();

    const duringLock = load.answers.filter(
      (answer) => answer.startedAt >= lockedAt && answer.endedAt <= releasedAt,
    );
    const refused = duringLock.filter((answer) => answer.status === 503);
    report('sqlite lock', {
      healthMaxMs: Math.max(...health.map(took)),
      pageMaxMs: Math.max(...pages.map(took)),
      writesDuringLock: duringLock.length,
      refused: refused.length,
      slowestWriteMs: Math.max(0, ...load.answers.map(took)),
    });

    expect(health.length).toBeGreaterThan(HOLD_MS / 1_000 / 2);
    for (const answer of [...health, ...pages]) {
      expect(answer.status, `${answer.url}${answer.path}`).toBe(200);
      expect(took(answer), `${answer.url}${answer.path}`).toBeLessThan(QUICK_ANSWER_MS);
    }
    // Writers wait the whole timeout (one at a time each), so each writer is refused at least once.
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body.code).toBe('unavailable');
      expect(answer.headers?.get('retry-after')).toMatch(/^\d+$/);
      expect(took(answer)).toBeGreaterThanOrEqual(DB_TIMEOUT_MS - 100);
    }
    for (const answer of load.answers) {
      expect(took(answer), `${answer.method} ${answer.path} (${answer.status})`).toBeLessThan(
        DB_TIMEOUT_MS + ANSWER_SLACK_MS,
      );
      expect([200, 201, 503], `${answer.method} ${answer.path}: ${JSON.stringify(answer.body)}`).toContain(
        answer.status,
      );
    }
    // Once the lock is given back, writes go through again, and every acknowledged one is there.
    expect(load.answers.filter((answer) => answer.startedAt > releasedAt).some(isSuccess)).toBe(true);
    await settleJobs(inspect);
    await expectReadBack(server.url, site, load.acknowledged);
  }, 60_000);
});
