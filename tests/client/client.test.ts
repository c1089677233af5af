import {
  createTailorClient,
  type PageCreate,
  paginate,
  type TailorClient,
  TailorProblem,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
} from '@tailor/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let tenant: Client;
let tailor: TailorClient;

beforeAll(async () => {
  server = await startServer();
  tenant = await server.newTenant();
  tailor = clientFor(tenant);
});
afterAll(() => server.close());

function clientFor(client: Client, fetch?: (request: Request) => Promise<Response>): TailorClient {
  if (!client.apiKey) throw new Error('the tenant has no key');
  return createTailorClient({ baseUrl: server.url, apiKey: client.apiKey, fetch });
}

const LAUNCH_PAGE: PageCreate = {
  name: 'Spring launch',
  pageContext: 'Tailor helps retailers grow. It personalizes every page.',
  brandId: 'acme',
  actions: [
    { actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'link', url: 'https://example.com/demo' },
  ],
  actionCardWidgets: [],
  scripts: [],
};

/** Runs the worker until nothing is due: generation enqueues the deliveries of later events. */
async function settle(): Promise<void> {
  const worker = server.worker();
  while ((await worker.drain()) > 0);
}

describe('the typed client against a live server', () => {
  it('creates a person, a page and an audience for the person', async () => {
    const person = await unwrap(
      tailor.POST('/v0/persons', { body: { name: 'Ada Lovelace', email: 'ada@analytical.example' } }),
    );
    expect(person).toMatchObject({ name: 'Ada Lovelace', domain: 'analytical.example' });
    expect(person.personId).toMatch(/^person_/);

    const page = await unwrap(tailor.POST('/v0/pages', { body: LAUNCH_PAGE }));
    expect(page).toMatchObject({ name: 'Spring launch', brandId: 'acme' });

    const audience = await unwrap(
      tailor.POST('/v0/pages/{page_id}/audiences', {
        params: { path: { page_id: page.pageId } },
        body: { personId: person.personId },
      }),
    );
    expect(audience).toMatchObject({ pageId: page.pageId, personId: person.personId, status: 'queued' });

    const read = await unwrap(
      tailor.GET('/v0/pages/{page_id}/audiences/{audience_id}', {
        params: { path: { page_id: page.pageId, audience_id: audience.audienceId } },
      }),
    );
    expect(read.audienceId).toBe(audience.audienceId);
  });

  it('pages through a list with cursors, one request a page', async () => {
    const client = await server.newTenant();
    const requested: string[] = [];
    const counting = clientFor(client, (request) => {
      requested.push(new URL(request.url).search);
      return fetch(request);
    });
    const created = [];
    for (const name of ['Ann', 'Ben', 'Cy', 'Di', 'Ed']) {
      created.push(await unwrap(counting.POST('/v0/persons', { body: { name } })));
    }
    requested.length = 0;

    const listed = [];
    for await (const person of paginate(counting, '/v0/persons', { params: { query: { limit: 2 } } })) {
      listed.push(person.personId);
    }

    expect(listed).toEqual(created.map((person) => person.personId).reverse());
    expect(requested).toHaveLength(3);
    expect(requested[0]).toBe('?limit=2');
    for (const search of requested.slice(1)) expect(search).toMatch(/^\?limit=2&cursor=./);
  });

  it('follows path parameters and filters of a nested list', async () => {
    const page = await unwrap(tailor.POST('/v0/pages', { body: LAUNCH_PAGE }));
    const made = [];
    for (let index = 0; index < 3; index++) {
      made.push(
        await unwrap(
          tailor.POST('/v0/pages/{page_id}/audiences', {
            params: { path: { page_id: page.pageId } },
            body: { customName: `Segment ${index}` },
          }),
        ),
      );
    }
    const listed = [];
    for await (const audience of paginate(tailor, '/v0/pages/{page_id}/audiences', {
      params: { path: { page_id: page.pageId }, query: { limit: 1 } },
    })) {
      listed.push(audience.audienceId);
    }
    expect(listed.sort()).toEqual(made.map((audience) => audience.audienceId).sort());
  });

  it('throws a problem answer as TailorProblem with its status, code and field errors', async () => {
    const invalid = await unwrap(tailor.POST('/v0/persons', { body: { name: '' } })).catch((error) => error);
    expect(invalid).toBeInstanceOf(TailorProblem);
    if (!(invalid instanceof TailorProblem)) return;
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(invalid.errors.map((error) => error.path)).toEqual(['/body/name']);
    expect(invalid.problem.requestId).toBeTruthy();
    expect(invalid.message).toContain('validation_failed');

    const missing = await unwrap(
      tailor.GET('/v0/persons/{person_id}', { params: { path: { person_id: 'person_nobody' } } }),
    ).catch((error) => error);
    expect(missing).toMatchObject({ name: 'TailorProblem', status: 404, code: 'not_found', errors: [] });

    await unwrap(tailor.POST('/v0/persons', { body: { name: 'Grace', email: 'grace@navy.example' } }));
    const taken = await unwrap(
      tailor.POST('/v0/persons', { body: { name: 'Grace', email: 'grace@navy.example' } }),
    ).catch((error) => error);
    expect(taken).toMatchObject({ status: 409, code: 'conflict' });
  });

  it('sends the key with every request, and a failed page of a list throws too', async () => {
    const stranger = createTailorClient({ baseUrl: server.url, apiKey: 'tlr_not_a_key' });
    const refused = await unwrap(stranger.GET('/v0/persons')).catch((error) => error);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key' });

    const listing = paginate(stranger, '/v0/persons', {});
    await expect(listing.next()).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('throws an Error naming the status for an answer that is not a problem document', async () => {
    const proxy = clientFor(tenant, async () => new Response('<h1>Bad gateway</h1>', { status: 502 }));
    const failed = await unwrap(proxy.GET('/v0/persons')).catch((error) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(TailorProblem);
    expect(failed.message).toContain('HTTP 502');
  });
});

describe('verifyWebhook', () => {
  it('verifies a real delivery and rejects a tampered or foreign one', async () => {
    const hooks = await startReceiver();
    try {
      const subscription = await unwrap(
        tailor.POST('/v0/webhook_subscriptions', {
          body: { url: hooks.url, events: ['page.version.published'] },
        }),
      );
      const page = await unwrap(tailor.POST('/v0/pages', { body: LAUNCH_PAGE }));
      const audience = await unwrap(
        tailor.POST('/v0/pages/{page_id}/audiences', {
          params: { path: { page_id: page.pageId } },
          body: { autoPublish: true },
        }),
      );
      await settle();

      const [delivery] = hooks.received;
      if (!delivery) throw new Error('nothing was delivered');
      const event = verifyWebhook(subscription.secret, delivery.body, delivery.headers);
      expect(event).toEqual(JSON.parse(delivery.body));
      expect(event).toMatchObject({
        type: 'page.version.published',
        data: { audienceId: audience.audienceId },
      });

      const fetchHeaders = new Headers();
      for (const [name, value] of Object.entries(delivery.headers)) fetchHeaders.set(name, String(value));
      expect(verifyWebhook(subscription.secret, delivery.body, fetchHeaders)).toEqual(event);

      const tampered = delivery.body.replace(audience.audienceId, 'audience_someone_else');
      expect(() => verifyWebhook(subscription.secret, tampered, delivery.headers)).toThrow(
        WebhookVerificationError,
      );
      const rotated = await unwrap(
        tailor.POST('/v0/webhook_subscriptions/{subscription_id}/rotate_secret', {
          params: { path: { subscription_id: subscription.subscriptionId } },
        }),
      );
      const { 'webhook-signature': _signature, ...unsigned } = delivery.headers;
      expect(() => verifyWebhook(subscription.secret, delivery.body, unsigned)).toThrow(
        WebhookVerificationError,
      );
      expect(() => verifyWebhook(rotated.secret, delivery.body, delivery.headers)).toThrow(
        WebhookVerificationError,
      );
    } finally {
      await hooks.close();
    }
  });

  it('verifies the webhook.test event that the test endpoint sends at once', async () => {
    const hooks = await startReceiver();
    try {
      const subscription = await unwrap(
        tailor.POST('/v0/webhook_subscriptions', { body: { url: hooks.url, events: [] } }),
      );
      const delivery = await unwrap(
        tailor.POST('/v0/webhook_subscriptions/{subscription_id}/test', {
          params: { path: { subscription_id: subscription.subscriptionId } },
        }),
      );
      expect(delivery).toMatchObject({ eventType: 'webhook.test', state: 'succeeded', lastStatusCode: 204 });

      const [received] = hooks.received;
      if (!received) throw new Error('nothing was delivered');
      const event = verifyWebhook(subscription.secret, received.body, received.headers);
      if (event.type !== 'webhook.test') throw new Error(`${event.type} was delivered`);
      expect(event.id).toBe(delivery.eventId);
      expect(event.data.subscriptionId).toBe(subscription.subscriptionId);
    } finally {
      await hooks.close();
    }
  });
});
