import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { WebhookDelivery, WebhookDeliveryList } from '../../src/resources/webhooks/schema.ts';
import { anyTables } from '../helpers/any-tables.ts';
import type { Received } from '../helpers/receiver.ts';
import { expectSchema } from '../helpers/schema.ts';
import { Client, startServer, type TestServer } from '../helpers/server.ts';
import { webhookFixtures } from '../helpers/webhooks.ts';

const BASE = '/v0/webhook_subscriptions';

let server: TestServer;
/** A node on the same database that refuses non-public receivers, as production does. */
let strict: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  strict = await startServer({ allowPrivateWebhooks: false, database: server.database });
  api = await server.newTenant();
});
afterAll(async () => {
  await strict.close();
  await server.close();
});

const fixtures = webhookFixtures();
const { receiver } = fixtures;

function subscribe(client: Client, url: string, events: string[] | null = ['form.submitted']) {
  return fixtures.subscribe(client, { url, events });
}

type Delivery = { deliveryId: string; eventId: string; eventType: string; state: string } & Record<
  string,
  unknown
>;

async function sendTest(client: Client, subscriptionId: string, via = client): Promise<Delivery> {
  const response = await via.post(`${BASE}/${subscriptionId}/test`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expectSchema(WebhookDelivery, response.body);
  return response.body;
}

async function deliveryLog(client: Client, subscriptionId: string): Promise<Delivery[]> {
  const response = await client.get(`${BASE}/${subscriptionId}/deliveries`);
  expect(response.status).toBe(200);
  expectSchema(WebhookDeliveryList, response.body);
  return response.body.items;
}

function retry(client: Client, subscriptionId: string, deliveryId: string) {
  return client.post(`${BASE}/${subscriptionId}/deliveries/${deliveryId}/retry`);
}

async function settle(): Promise<void> {
  const worker = server.worker();
  while ((await worker.drain()) > 0);
}

function verify(secret: string, entry: Received) {
  const header = (name: string) => String(entry.headers[name] ?? '');
  return new Webhook(secret).verify(entry.body, {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  });
}

describe('POST /v0/webhook_subscriptions/{id}/test', () => {
  it('sends a signed webhook.test at once, whatever the events filter, and answers the delivery', async () => {
    const hooks = await receiver();
    const subscription = await subscribe(api, hooks.url, ['form.submitted']);
    const delivery = await sendTest(api, subscription.subscriptionId);
    expect(delivery).toMatchObject({
      subscriptionId: subscription.subscriptionId,
      eventType: 'webhook.test',
      state: 'succeeded',
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
      deliveredAt: expect.stringMatching(/^\+\d+$/),
    });
    expect(hooks.received).toHaveLength(1);
    const [entry] = hooks.received as [Received];
    expect(entry.headers['webhook-id']).toBe(delivery.eventId);
    expect(verify(subscription.secret, entry)).toEqual({
      id: delivery.eventId,
      type: 'webhook.test',
      createdAt: expect.stringMatching(/^\+\d+$/),
      data: { subscriptionId: subscription.subscriptionId },
    });
    expect(await deliveryLog(api, subscription.subscriptionId)).toEqual([delivery]);
  });

  it('answers a failed delivery with the status or the error, tried once', async () => {
    const refusing = await receiver(() => ({ status: 500 }));
    const subscription = await subscribe(api, refusing.url);
    expect(await sendTest(api, subscription.subscriptionId)).toMatchObject({
      state: 'failed',
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'the receiver answered 500',
      deliveredAt: null,
    });
    const gone = await receiver();
    await gone.close();
    const unreachable = await subscribe(api, gone.url);
    const failed = await sendTest(api, unreachable.subscriptionId);
    expect(failed).toMatchObject({ state: 'failed', lastStatusCode: null });
    expect(failed.lastError).toMatch(/ECONNREFUSED/);
    await settle();
    expect(refusing.received).toHaveLength(1);
  });

  it('keeps the address guard: a private receiver gets nothing from a server that refuses them', async () => {
    const hooks = await receiver();
    const subscription = await subscribe(api, hooks.url);
    const strictApi = new Client(strict.url, api.apiKey, api.tenantId);
    const delivery = await sendTest(api, subscription.subscriptionId, strictApi);
    expect(delivery).toMatchObject({ state: 'failed', lastStatusCode: null });
    expect(delivery.lastError).toMatch(/not a public address/);
    expect(hooks.received).toHaveLength(0);
  });

  it("is refused to a read-only key and for another tenant's subscription", async () => {
    const hooks = await receiver();
    const subscription = await subscribe(api, hooks.url);
    const key = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const readOnly = await api.as(key.apiKey).post(`${BASE}/${subscription.subscriptionId}/test`);
    expect(readOnly.status).toBe(403);
    const other = await server.newTenant();
    const foreign = await other.post(`${BASE}/${subscription.subscriptionId}/test`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect(hooks.received).toHaveLength(0);
  });
});

describe('POST /v0/webhook_subscriptions/{id}/deliveries/{delivery_id}/retry', () => {
  it('retries a failed delivery with the same webhook-id, and it then succeeds', async () => {
    let up = false;
    const hooks = await receiver(() => ({ status: up ? 200 : 503 }));
    const subscription = await subscribe(api, hooks.url);
    const failed = await sendTest(api, subscription.subscriptionId);
    expect(failed.state).toBe('failed');

    up = true;
    const response = await retry(api, subscription.subscriptionId, failed.deliveryId);
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    expectSchema(WebhookDelivery, response.body);
    expect(response.body).toMatchObject({
      deliveryId: failed.deliveryId,
      eventId: failed.eventId,
      state: 'pending',
      nextAttemptAt: expect.stringMatching(/^\+\d+$/),
    });
    await settle();

    expect(hooks.received.map((entry) => entry.headers['webhook-id'])).toEqual([
      failed.eventId,
      failed.eventId,
    ]);
    expect(verify(subscription.secret, hooks.received[1] as Received)).toMatchObject({
      type: 'webhook.test',
    });
    expect(await deliveryLog(api, subscription.subscriptionId)).toEqual([
      expect.objectContaining({
        deliveryId: failed.deliveryId,
        state: 'succeeded',
        attempts: 2,
        lastStatusCode: 200,
        lastError: null,
      }),
    ]);
  });

  it('retries a succeeded delivery of a real event', async () => {
    const hooks = await receiver();
    const subscription = await subscribe(api, hooks.url, ['page.version.created']);
    const page = await api.post('/v0/pages', {
      name: 'Autumn webinar',
      pageContext: 'A live session on personalizing B2B landing pages.',
      brandId: 'acme',
      actions: [{ buttonTitle: 'Save my seat', actionType: 'form' }],
      actionCardWidgets: [],
      scripts: [],
    });
    expect((await api.post(`/v0/pages/${page.body.pageId}/audiences`, {})).status).toBe(201);
    const [pending] = await deliveryLog(api, subscription.subscriptionId);
    expect(pending?.state).toBe('pending');
    const early = await retry(api, subscription.subscriptionId, pending?.deliveryId ?? '');
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('invalid_state');

    await settle();
    const [delivered] = await deliveryLog(api, subscription.subscriptionId);
    expect(delivered?.state).toBe('succeeded');
    expect((await retry(api, subscription.subscriptionId, delivered?.deliveryId ?? '')).status).toBe(202);
    await settle();
    expect(hooks.events().map((event) => [event.type, event.id])).toEqual([
      ['page.version.created', delivered?.eventId],
      ['page.version.created', delivered?.eventId],
    ]);
  });

  it('is refused while the subscription is off (a test too), to a read-only key, and outside the subscription or tenant', async () => {
    const hooks = await receiver();
    const subscription = await subscribe(api, hooks.url);
    const { deliveryId } = await sendTest(api, subscription.subscriptionId);
    const another = await subscribe(api, hooks.url);

    expect((await retry(api, another.subscriptionId, deliveryId)).status).toBe(404);
    const other = await server.newTenant();
    expect((await retry(other, subscription.subscriptionId, deliveryId)).status).toBe(404);
    const otherSubscription = await subscribe(other, hooks.url);
    expect((await retry(other, otherSubscription.subscriptionId, deliveryId)).status).toBe(404);
    const key = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    expect((await retry(api.as(key.apiKey), subscription.subscriptionId, deliveryId)).status).toBe(403);

    await api.patch(`${BASE}/${subscription.subscriptionId}`, { active: false });
    for (const off of [
      await retry(api, subscription.subscriptionId, deliveryId),
      await api.post(`${BASE}/${subscription.subscriptionId}/test`),
    ]) {
      expect(off.status).toBe(409);
      expect(off.body.code).toBe('invalid_state');
    }
    await settle();
    expect(hooks.received).toHaveLength(1);
  });
});
