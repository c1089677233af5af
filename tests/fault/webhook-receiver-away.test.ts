import { describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.ts';
import {
  afterTest,
  countByWrite,
  expectEveryEventDelivered,
  faultEnvironment,
  listAll,
  publishSite,
  report,
  settleJobs,
  startLoad,
  subscribe,
  TailorNode,
  waitFor,
} from './support.ts';

/** Changes that emit events (versions created and processed, forms submitted and enriched). */
const EVENTFUL_CHANGES = 40;

describe('webhook receiver away while the server restarts', () => {
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'delivers every event once the receiver is back (server stopped with %s)',
    async (signal) => {
      const { env, inspect } = await faultEnvironment({ TAILOR_WORKERS: '1' });
      const before = await startReceiver();
      const node = await TailorNode.start('serve', env);
      const site = await publishSite(node.url);
      const subscriptionId = await subscribe(node.url, before.url);
      await before.close();

      const load = startLoad({ targets: () => [node.url], site, writes: ['audience', 'form'], writers: 2 });
      await waitFor('eventful changes', async () => load.acknowledged.length >= EVENTFUL_CHANGES, 30_000);
      await load.stop();
      const deliveries = `/v0/webhook_subscriptions/${subscriptionId}/deliveries`;
      const retried = await waitFor(
        'every delivery to have failed, and some to have been retried',
        async () => {
          const pending = (await listAll(node.url, deliveries)).filter(
            (delivery) => delivery.state === 'pending',
          );
          const failing = pending.every((delivery) => delivery.attempts >= 1 && delivery.lastError !== null);
          return (
            pending.length > 0 && failing && pending.some((delivery) => delivery.attempts >= 2) && pending
          );
        },
        30_000,
      );

      await node.kill(signal);
      await node.start();
      const after = await startReceiver(undefined, before.port);
      afterTest(after.close);
      await settleJobs(inspect);

      const delivered = await expectEveryEventDelivered(
        node.url,
        subscriptionId,
        [...before.events(), ...after.events()],
        load.acknowledged,
      );
      expect(delivered).toBeGreaterThanOrEqual(retried.length);
      report(`webhook receiver away, server stopped with ${signal}`, {
        acknowledged: countByWrite(load.acknowledged),
        pendingAtRestart: retried.length,
        mostAttemptsAtRestart: Math.max(
          ...retried.map((delivery: { attempts: number }) => delivery.attempts),
        ),
        delivered,
        received: before.received.length + after.received.length,
      });
    },
    120_000,
  );
});
