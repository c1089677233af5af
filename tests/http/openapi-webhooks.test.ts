import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { SENT_EVENT_TYPES } from '../../src/resources/webhooks/events.ts';
import { Signer } from '../../src/shared/signing.ts';
import { inlineSchemaReferences } from '../helpers/openapi.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { type Client, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

// The `webhooks` section of the OpenAPI document is the contract with receivers: every kind a
// receiver really gets, as really delivered, must fit the envelope and payload published for it.

type Schema = Record<string, unknown>;
interface WebhookOperation {
  operationId: string;
  security: unknown[];
  parameters: { in: string; name: string; required: boolean }[];
  requestBody: { content: { 'application/json': { schema: Schema } } };
}

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);

/** The schema with every object closed to fields it does not name, so that a payload cannot grow unnoticed either. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  if ('properties' in copy && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

let server: TestServer;
let api: Client;
let webhooks: Record<string, { post: WebhookOperation }>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  receiver = await startReceiver();
  webhooks = inlineSchemaReferences((await server.anonymous().get('/v0/openapi.json')).body).webhooks;
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

async function settle(): Promise<void> {
  const worker = server.worker();
  while ((await worker.drain()) > 0);
}

/** Makes Tailor send every kind of event to the receiver, as a client and visitors would. */
async function sendEveryKind(): Promise<void> {
  const subscription = await api.post('/v0/webhook_subscriptions', { url: receiver.url });
  expect(subscription.status, JSON.stringify(subscription.body)).toBe(201);
  const page = await publishLinkedPage(server, api, {
    audience: { autoPublish: true },
    personalize: false,
    path: '/every-kind',
  });
  await settle();
  const token = issueToken(new Signer(TEST_SECRET), {
    tenantId: api.tenantId,
    pageId: page.pageId,
    audienceId: page.audienceId,
    pageLinkId: page.pageLinkId,
    arm: 'personalized',
    expiresAt: Date.now() + TOKEN_VALID_MS,
  });
  const visitor = server.anonymous();
  const fields = { name: 'Dana Whitfield', company: 'Northwind Outfitters' };
  for (const email of ['dana.whitfield@northwind-outfitters.example', 'dana@localhost']) {
    const submitted = await visitor.post('/v0/public/forms', { token, email, fields });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  }
  await settle();
  const test = await api.post(`/v0/webhook_subscriptions/${subscription.body.subscriptionId}/test`);
  expect(test.status, JSON.stringify(test.body)).toBe(200);
}

describe('the webhooks of the OpenAPI document', () => {
  it('lists every kind with its operation, the Standard Webhooks headers and no API key', () => {
    expect(Object.keys(webhooks).sort()).toEqual([...SENT_EVENT_TYPES].sort());
    for (const { post } of Object.values(webhooks)) {
      expect(post.security).toEqual([]);
      expect(post.parameters.filter((parameter) => parameter.in === 'header' && parameter.required)).toEqual(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) =>
          expect.objectContaining({ name }),
        ),
      );
    }
  });

  it('publishes the shape of every event as it is delivered', async () => {
    await sendEveryKind();
    const delivered = receiver.events();
    expect(new Set(delivered.map((event) => event.type))).toEqual(new Set(SENT_EVENT_TYPES));
    for (const event of delivered) {
      const schema = webhooks[event.type]?.post.requestBody.content['application/json'].schema;
      const validate = ajv.compile(closed(schema) as Schema);
      expect(validate(event) ? [] : validate.errors, `${event.type}: ${JSON.stringify(event)}`).toEqual([]);
    }
  });
});
