import { afterEach, expect } from 'vitest';
import { WebhookSubscriptionWithSecret } from '../../src/resources/webhooks/schema.ts';
import { type Answer, startReceiver } from './receiver.ts';
import { expectSchema } from './schema.ts';
import type { Client } from './server.ts';

export const SUBSCRIPTIONS = '/v0/webhook_subscriptions';

export interface Subscribed {
  subscriptionId: string;
  secret: string;
  url: string;
  events: string[] | null;
}

/**
 * Receivers and subscriptions for the tests of a file, each closed or deleted after the test that
 * made it (deleting a subscription drops its pending deliveries), so that a retry left over by one
 * test never reaches a receiver of a later test that happens to get the same port.
 */
export function webhookFixtures() {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const afterTest = (cleanup: () => Promise<unknown>) => cleanups.push(cleanup);
  return {
    afterTest,
    async receiver(answer?: Answer) {
      const started = await startReceiver(answer);
      afterTest(started.close);
      return started;
    },
    async subscribe(client: Client, body: Record<string, unknown>): Promise<Subscribed> {
      const response = await client.post(SUBSCRIPTIONS, body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expectSchema(WebhookSubscriptionWithSecret, response.body);
      afterTest(() => client.delete(`${SUBSCRIPTIONS}/${response.body.subscriptionId}`));
      return response.body;
    },
  };
}
