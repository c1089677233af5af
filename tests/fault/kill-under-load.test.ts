import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GENERATE_JOB } from '../../src/workflows/audience-versions/service.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  afterTest,
  countByWrite,
  expectEveryEventDelivered,
  expectReadBack,
  FAULT_CYCLES,
  faultEnvironment,
  leasedJobs,
  publishSite,
  report,
  settleJobs,
  startLoad,
  subscribe,
  TailorNode,
  takenOver,
  untilGenerating,
} from './support.ts';

/** Leases last 10 s (src/jobs/worker.ts): a job a crash interrupted runs again within this. */
const TAKEOVER_BOUND_MS = 15_000;

describe('tailor serve killed with -9 under mixed write load', () => {
  it(
    `loses no acknowledged write, generation or webhook event over ${FAULT_CYCLES} crashes`,
    async () => {
      const { env, inspect } = await faultEnvironment({ TAILOR_WORKERS: '1' });
      const receiver = await startReceiver();
      afterTest(receiver.close);
      const node = await TailorNode.start('serve', env);
      const site = await publishSite(node.url);
      const subscriptionId = await subscribe(node.url, receiver.url);
      const load = startLoad({
        targets: () => [node.url],
        site,
      });

      const acknowledgedPerCycle: number[] = [];
      const takeovers: { kind: string; ms: number }[] = [];
      for (let cycle = 0; cycle < FAULT_CYCLES; cycle++) {
        const before = load.acknowledged.length;
        await sleep(1_000 + Math.random() * 2_000);
        // The moment is random, but taken while a version is being generated when one comes soon:
        // so crashes interrupt generations, and their takeover is measured.
        await untilGenerating(inspect, 2_000);
        const killedAt = Date.now();
        await node.kill();
        const interrupted = await leasedJobs(inspect);
        await node.start();
        const delays = await takenOver(inspect, interrupted, killedAt, 2 * TAKEOVER_BOUND_MS);
        takeovers.push(...interrupted.map((lease, i) => ({ kind: lease.kind, ms: delays[i] as number })));
        acknowledgedPerCycle.push(load.acknowledged.length - before);
      }
      await load.stop();
      await node.kill();
      await node.start();
      await settleJobs(inspect);

      await expectReadBack(node.url, site, load.acknowledged);
      const deliveries = await expectEveryEventDelivered(
        node.url,
        subscriptionId,
        receiver.events(),
        load.acknowledged,
      );
      expect(takeovers.filter((takeover) => takeover.kind === GENERATE_JOB).length).toBeGreaterThan(0);
      for (const takeover of takeovers) expect(takeover.ms).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
      report('kill -9 under load', {
        acknowledgedPerCycle,
        acknowledged: countByWrite(load.acknowledged),
        takeoverMs: takeovers.map((takeover) => `${takeover.kind} ${takeover.ms}`),
        deliveries,
        received: receiver.received.length,
      });
    },
    FAULT_CYCLES * 40_000 + 120_000,
  );
});
