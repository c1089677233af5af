import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.ts';
import { onPostgres } from '../helpers/server.ts';
import {
  afterTest,
  countByWrite,
  expectEveryEventDelivered,
  expectReadBack,
  faultEnvironment,
  isSuccess,
  publishSite,
  report,
  settleJobs,
  startLoad,
  subscribe,
  TailorNode,
} from './support.ts';

/** Load before the kill, and after it on the node that is left. */
const LOAD_MS = 3_000;

describe.skipIf(!onPostgres)('two API nodes and a worker on one PostgreSQL database', () => {
  it('keeps serving from one node while the other is killed with -9 mid-load, and loses nothing', async () => {
    const { env, inspect } = await faultEnvironment({ TAILOR_WORKERS: '0' });
    const receiver = await startReceiver();
    afterTest(receiver.close);
    const killed = await TailorNode.start('serve', env);
    const survivor = await TailorNode.start('serve', env);
    const worker = await TailorNode.start('worker', { ...env, TAILOR_WORKERS: '2' });
    const site = await publishSite(survivor.url);
    const subscriptionId = await subscribe(survivor.url, receiver.url);
    // Writers keep sending to the dead node too, as a client that has not noticed would.
    const load = startLoad({
      targets: () => [killed.url, survivor.url],
      site,
    });
    await sleep(LOAD_MS);
    const killedAt = Date.now();
    await killed.kill();
    await sleep(LOAD_MS);
    await load.stop();
    await settleJobs(inspect);

    const fromSurvivor = load.answers.filter((answer) => answer.url === survivor.url);
    const failed = fromSurvivor.filter((answer) => !isSuccess(answer));
    expect(failed.map((answer) => [answer.path, answer.status, answer.body])).toEqual([]);
    expect(fromSurvivor.filter((answer) => answer.startedAt > killedAt).length).toBeGreaterThan(0);
    survivor.assertRunning();
    worker.assertRunning();
    await expectReadBack(survivor.url, site, load.acknowledged);
    const deliveries = await expectEveryEventDelivered(
      survivor.url,
      subscriptionId,
      receiver.events(),
      load.acknowledged,
    );
    report('one of two nodes killed', {
      acknowledged: countByWrite(load.acknowledged),
      survivorAnswersAfterKill: fromSurvivor.filter((answer) => answer.startedAt > killedAt).length,
      slowestSurvivorAnswerMs: Math.max(...fromSurvivor.map((answer) => answer.endedAt - answer.startedAt)),
      deliveries,
    });
  }, 120_000);
});
