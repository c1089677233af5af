import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { onPostgres } from '../helpers/server.ts';
import { proxyToDatabase, type TcpProxy } from '../helpers/tcp-proxy.ts';
import {
  type Answer,
  afterTest,
  call,
  countByWrite,
  expectEveryEventDelivered,
  expectReadBack,
  faultEnvironment,
  isSuccess,
  leasedJobs,
  publishSite,
  report,
  settleJobs,
  startLoad,
  subscribe,
  TailorNode,
  waitFor,
} from './support.ts';

/** How long the database stays cut off. */
const CUT_MS = 4_000;
/** Load before the cut, and after the server has recovered. */
const LOAD_MS = 2_000;
/** Every answer comes within this, whether the database is there or not: never a hang… */
const ANSWER_BOUND_MS = 3_000;
/** …and once it is back, the server answers 2xx again within this, by itself. */
const RECOVERY_BOUND_MS = 5_000;
/** Writes held in PostgreSQL when the cut comes (with idempotency keys: their claims are made by then). */
const HELD_WRITES = 4;
/**
 * TAILOR_DB_TIMEOUT_MS of the silent-partition scenario, small so that it runs quickly. A request
 * then waits at most this for a connection and this again for a statement's answer: ANSWER_BOUND_MS
 * (3 s) leaves a second to spare.
 */
const SILENT_DB_TIMEOUT_MS = 1_000;

/** A proxy on the way to the PostgreSQL of TEST_DATABASE_URL, and `env` with its DATABASE_URL through it. */
async function databaseBehindProxy(
  env: Record<string, string>,
): Promise<{ proxy: TcpProxy; env: Record<string, string> }> {
  const { proxy, url } = await proxyToDatabase(env.DATABASE_URL as string);
  afterTest(proxy.close);
  return { proxy, env: { ...env, DATABASE_URL: url } };
}

/**
 * Takes `table` with an exclusive lock on a connection of the test's own (not through the proxy), so
 * that the server's statements on it wait inside PostgreSQL: requests in flight at the cut.
 */
async function lockTable(databaseUrl: string, table: string) {
  const holder = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async waiting(): Promise<number> {
      const { rows } = await holder.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      return rows[0].n;
    },
    async release(): Promise<void> {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}

function isUnavailableAnswer(answer: Answer): boolean {
  return (
    answer.status === 503 &&
    (answer.headers?.get('content-type') ?? '').startsWith('application/problem+json') &&
    answer.body.code === 'unavailable'
  );
}

const latency = (answer: Answer) => answer.endedAt - answer.startedAt;

/**
 * Cuts the database off while work is in flight: writes wait inside PostgreSQL on a lock the test
 * holds (with idempotency keys, claimed by then), and the worker holds a job. Answers when the cut
 * came and what the held writes got.
 */
async function cutWithWorkInFlight(node: TailorNode, proxy: TcpProxy, directUrl: string, inspect: Database) {
  const lock = await lockTable(directUrl, 'persons');
  const held = Array.from({ length: HELD_WRITES }, (_, i) =>
    call(node.url, 'POST', '/v0/persons', {
      body: { name: `Held ${i}` },
      headers: { 'idempotency-key': `held-${i}` },
    }),
  );
  await waitFor('writes held in PostgreSQL', async () => (await lock.waiting()) >= HELD_WRITES, 10_000);
  await waitFor('a job in flight', async () => (await leasedJobs(inspect)).length > 0, 10_000);
  const cutAt = Date.now();
  proxy.cut();
  const heldAnswers = await Promise.all(held);
  await lock.release();
  return { cutAt, heldAnswers };
}

/** Waits until the server answers 2xx again (it must not have died meanwhile); answers when. */
async function recovered(node: TailorNode): Promise<number> {
  await waitFor(
    'a 2xx answer',
    async () => {
      node.assertRunning();
      return isSuccess(await call(node.url, 'GET', '/v0/persons?limit=1'));
    },
    30_000,
  );
  return Date.now();
}

interface CutTimes {
  cutAt: number;
  restoredAt: number;
  recoveredAt: number;
}

/**
 * Every answer of the load is a success or 503 `unavailable` with Retry-After, and none took long;
 * those asked and answered while the database was away are all 503, and those asked once the server
 * had recovered all succeeded.
 */
function expectAnswersAroundTheCut(answers: Answer[], { cutAt, restoredAt, recoveredAt }: CutTimes): void {
  const wrong = answers.filter(
    (answer) => !isSuccess(answer) && !(isUnavailableAnswer(answer) && answer.headers?.get('retry-after')),
  );
  expect(wrong.map((answer) => [answer.method, answer.path, answer.status, answer.body])).toEqual([]);
  expect(Math.max(...answers.map(latency))).toBeLessThan(ANSWER_BOUND_MS);
  const duringCut = answers.filter((answer) => answer.startedAt >= cutAt && answer.endedAt <= restoredAt);
  expect(duringCut.length).toBeGreaterThan(0);
  expect(duringCut.filter(isSuccess)).toEqual([]);
  expect(answers.filter((answer) => answer.startedAt > recoveredAt && !isSuccess(answer))).toEqual([]);
}

describe.skipIf(!onPostgres)('PostgreSQL cut off under load', () => {
  it('answers 503 unavailable while cut off, recovers by itself when it is back, and loses nothing', async () => {
    const { env: directEnv, inspect } = await faultEnvironment({ TAILOR_WORKERS: '1' });
    const { proxy, env } = await databaseBehindProxy(directEnv);
    // Slow while the cut comes, so that webhook deliveries are in flight in the worker then.
    let receiverSlow = false;
    const receiver = await startReceiver(() => ({ status: 204, delayMs: receiverSlow ? 1_000 : 0 }));
    afterTest(receiver.close);
    const node = await TailorNode.start('serve', env);
    const site = await publishSite(node.url);
    const subscriptionId = await subscribe(node.url, receiver.url);
    const load = startLoad({
      targets: () => [node.url],
      site,
    });
    await sleep(LOAD_MS);

    receiverSlow = true;
    const { cutAt, heldAnswers } = await cutWithWorkInFlight(
      node,
      proxy,
      directEnv.DATABASE_URL as string,
      inspect,
    );
    const probes = [await call(node.url, 'GET', '/readyz'), await call(node.url, 'GET', '/v0/persons')];
    await sleep(cutAt + CUT_MS - Date.now());
    const restoredAt = Date.now();
    receiverSlow = false;
    proxy.restore();
    const recoveredAt = await recovered(node);
    await sleep(LOAD_MS);
    await load.stop();

    for (const answer of [...heldAnswers, ...probes]) {
      expect(isUnavailableAnswer(answer), `${answer.path}: ${JSON.stringify(answer.body)}`).toBe(true);
      expect(answer.endedAt - cutAt).toBeLessThan(ANSWER_BOUND_MS);
    }
    expectAnswersAroundTheCut(load.answers, { cutAt, restoredAt, recoveredAt });
    expect(recoveredAt - restoredAt).toBeLessThan(RECOVERY_BOUND_MS);
    node.assertRunning();
    await settleJobs(inspect);
    await expectReadBack(node.url, site, load.acknowledged);
    const deliveries = await expectEveryEventDelivered(
      node.url,
      subscriptionId,
      receiver.events(),
      load.acknowledged,
    );
    const duringCut = load.answers.filter(
      (answer) => answer.startedAt >= cutAt && answer.endedAt <= restoredAt,
    );
    const inFlightAtCut = load.answers.filter((answer) => answer.startedAt < cutAt && answer.endedAt > cutAt);
    report('PostgreSQL cut off', {
      acknowledged: countByWrite(load.acknowledged),
      answersDuringCut: duringCut.length,
      inFlightAtCut: inFlightAtCut.length + heldAnswers.length,
      medianCutAnswerMs: duringCut.map(latency).sort((a, b) => a - b)[Math.floor(duringCut.length / 2)],
      slowestAnswerMs: Math.max(...[...load.answers, ...heldAnswers].map(latency)),
      recoveryMs: recoveredAt - restoredAt,
      deliveries,
    });
  }, 120_000);

  it('answers 503 within TAILOR_DB_TIMEOUT_MS while PostgreSQL is silent, recovers by itself, and loses nothing (issue 21 finding 8)', async () => {
    const { env: directEnv, inspect } = await faultEnvironment({
      TAILOR_WORKERS: '1',
      TAILOR_DB_TIMEOUT_MS: String(SILENT_DB_TIMEOUT_MS),
    });
    const { proxy, env } = await databaseBehindProxy(directEnv);
    const receiver = await startReceiver(() => ({ status: 204 }));
    afterTest(receiver.close);
    const node = await TailorNode.start('serve', env);
    const site = await publishSite(node.url);
    const subscriptionId = await subscribe(node.url, receiver.url);
    const load = startLoad({ targets: () => [node.url], site });
    await sleep(LOAD_MS);

    // Connections stay open and new ones are accepted, but nothing is answered: no error comes.
    const stalledAt = Date.now();
    proxy.stall();
    const retried = { body: { name: 'Retried' }, headers: { 'idempotency-key': 'silent-retried' } };
    const probes = await Promise.all([
      call(node.url, 'GET', '/readyz'),
      call(node.url, 'GET', '/v0/persons'),
      call(node.url, 'POST', '/v0/persons', retried),
    ]);
    await sleep(stalledAt + CUT_MS - Date.now());
    const restoredAt = Date.now();
    proxy.restore();
    const recoveredAt = await recovered(node);
    const retry = await call(node.url, 'POST', '/v0/persons', retried);
    await sleep(LOAD_MS);
    await load.stop();

    for (const answer of probes) {
      expect(
        isUnavailableAnswer(answer),
        `${answer.path}: ${answer.status} ${JSON.stringify(answer.body)}`,
      ).toBe(true);
      expect(latency(answer)).toBeLessThan(ANSWER_BOUND_MS);
    }
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expectAnswersAroundTheCut(load.answers, { cutAt: stalledAt, restoredAt, recoveredAt });
    expect(recoveredAt - restoredAt).toBeLessThan(RECOVERY_BOUND_MS);
    node.assertRunning();
    await settleJobs(inspect);
    await expectReadBack(node.url, site, load.acknowledged);
    const deliveries = await expectEveryEventDelivered(
      node.url,
      subscriptionId,
      receiver.events(),
      load.acknowledged,
    );
    const duringStall = load.answers.filter(
      (answer) => answer.startedAt >= stalledAt && answer.endedAt <= restoredAt,
    );
    report('PostgreSQL silent', {
      acknowledged: countByWrite(load.acknowledged),
      answersDuringStall: duringStall.length,
      probeMs: probes.map(latency),
      medianStallAnswerMs: duringStall.map(latency).sort((a, b) => a - b)[Math.floor(duringStall.length / 2)],
      slowestAnswerMs: Math.max(...[...load.answers, ...probes].map(latency)),
      recoveryMs: recoveredAt - restoredAt,
      deliveries,
    });
  }, 120_000);

  it('a server started while PostgreSQL is away waits for it, and comes up by itself', async () => {
    const environment = await faultEnvironment();
    const { proxy, env } = await databaseBehindProxy(environment.env);
    proxy.cut();
    const [node] = await Promise.all([
      TailorNode.start('serve', env),
      sleep(CUT_MS).then(() => proxy.restore()),
    ]);
    expect((await call(node.url, 'GET', '/readyz')).status).toBe(200);
    expect((await call(node.url, 'POST', '/v0/persons', { body: { name: 'After the wait' } })).status).toBe(
      201,
    );
  }, 60_000);
});
