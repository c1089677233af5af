import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJobs } from '../../src/jobs/store.ts';
import { AudienceVersion } from '../../src/resources/audiences/schema.ts';
import { DELIVER_JOB } from '../../src/resources/webhooks/events.ts';
import {
  WebhookDeliveryList,
  WebhookSubscription,
  WebhookSubscriptionList,
  WebhookSubscriptionWithSecret,
} from '../../src/resources/webhooks/schema.ts';
import { anyTables } from '../helpers/any-tables.ts';
import type { Received } from '../helpers/receiver.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';
import { SCRIPT_URLS } from '../helpers/urls.ts';
import { webhookFixtures } from '../helpers/webhooks.ts';

const BASE = '/v0/webhook_subscriptions';
const VERSION_EVENTS = ['page.version.created', 'page.version.processed', 'page.version.published'];
const TIMESTAMP = /^\+[1-9]\d{1,14}$/;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Every address class a subscription may not point at unless private receivers are allowed. */
const NON_PUBLIC_URLS = [
  ['a loopback', 'http://127.0.0.1/hooks'],
  ['a localhost', 'http://localhost:8080/hooks'],
  ['a private', 'https://10.0.0.1/hooks'],
  ['a private 192.168', 'http://192.168.1.20/hooks'],
  ['a link-local (cloud metadata)', 'http://169.254.169.254/latest/meta-data'],
  ['an IPv6 loopback', 'http://[::1]:9000/hooks'],
  ['an IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/hooks'],
  ['an IPv4-compatible IPv6 loopback', 'http://[::127.0.0.1]/hooks'],
  ['an IPv4-compatible IPv6 private', 'http://[::10.0.0.1]/hooks'],
  ['a multicast', 'http://224.0.0.1/hooks'],
  ['an unspecified', 'http://0.0.0.0/hooks'],
];

let server: TestServer;
/** A second node on the same database that refuses non-public receivers, as production does. */
let strict: TestServer;
let api: Client;

// Workers claim due jobs of every tenant and these tests travel days ahead; every test file has a
// database of its own (see tests/helpers/server.ts), so no other file's jobs are run here.
beforeAll(async () => {
  server = await startServer();
  strict = await startServer({ allowPrivateWebhooks: false, database: server.database });
  api = await server.newTenant();
});
afterAll(async () => {
  await strict.close();
  await server.close();
});

const { afterTest, receiver, subscribe } = webhookFixtures();

async function createPage(client: Client) {
  const response = await client.post('/v0/pages', {
    name: 'Launch',
    pageContext: 'Tailor helps retailers grow. It personalizes every page.',
    brandId: 'b',
    actions: [{ buttonTitle: 'Book a demo', actionType: 'link', url: 'https://example.com/demo' }],
    actionCardWidgets: [],
    scripts: [],
  });
  expect(response.status).toBe(201);
  return response.body as { pageId: string };
}

/** Creates an audience: `page.version.created` now, `processed` (and `published`) when generated. */
async function createAudience(client: Client, body: Record<string, unknown> = {}) {
  const page = await createPage(client);
  const response = await client.post(`/v0/pages/${page.pageId}/audiences`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { pageId: string; audienceId: string; latestVersion: { versionId: string } };
}

async function deliveries(client: Client, subscriptionId: string, query = '') {
  const response = await client.get(`${BASE}/${subscriptionId}/deliveries${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expectSchema(WebhookDeliveryList, response.body);
  return response.body as {
    items: {
      deliveryId: string;
      eventId: string;
      eventType: string;
      state: string;
      attempts: number;
      lastStatusCode: number | null;
      lastError: string | null;
      nextAttemptAt: string | null;
      deliveredAt: string | null;
    }[];
    totalCount: number;
    hasMore: boolean;
    nextCursor: string | null;
  };
}

const millis = (timestamp: string | null) => Number(timestamp?.slice(1));

function webhookHeaders(entry: Received): Record<string, string> {
  const header = (name: string) => String(entry.headers[name] ?? '');
  return {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  };
}

/** Verifies with the standardwebhooks library: an independent implementation of the scheme. */
function verify(secret: string, entry: Received, body = entry.body) {
  return new Webhook(secret).verify(body, webhookHeaders(entry));
}

/** The by-hand verification of docs/webhooks.md, kept here so that the documented code is tested. */
function verifyByHand(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((signature) => {
    const [version, value = ''] = signature.split(',');
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * Runs the worker until nothing is due now. One `drain()` is not enough: it runs what is due at
 * the moment it starts, and the deliveries of `processed` and `published` are enqueued later, by
 * the generation job it runs.
 */
async function settle(worker = server.worker()): Promise<void> {
  while ((await worker.drain()) > 0);
}

/** When the subscription's current failing streak began (internal: not in the API). */
async function failingSince(subscriptionId: string): Promise<number | null | undefined> {
  const row = await anyTables(server.database)
    .selectFrom('webhook_subscriptions')
    .select('failing_since')
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return row?.failing_since;
}

describe('POST /v0/webhook_subscriptions', () => {
  it('creates a subscription: 201, Location, the secret once, active by default, every kind', async () => {
    const response = await api.post(BASE, { url: 'https://hooks.example.com/tailor' });
    expect(response.status).toBe(201);
    expectSchema(WebhookSubscriptionWithSecret, response.body);
    const created = response.body;
    afterTest(() => api.delete(`${BASE}/${created.subscriptionId}`));
    expect(response.headers.get('location')).toBe(`${BASE}/${created.subscriptionId}`);
    expect(created).toMatchObject({ url: 'https://hooks.example.com/tailor', active: true, events: null });
    expect(created.subscriptionId).toMatch(/^whsub_[a-z0-9]{26}$/);
    expect(created.createdAt).toMatch(TIMESTAMP);
    expect(created.updatedAt).toBe(created.createdAt);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);

    const read = await api.get(`${BASE}/${created.subscriptionId}`);
    expect(read.status).toBe(200);
    expectSchema(WebhookSubscription, read.body);
    expect(read.body).not.toHaveProperty('secret');
    const { secret: _secret, ...withoutSecret } = created;
    expect(read.body).toEqual(withoutSecret);
    const listed = (await api.get(BASE)).body.items.find(
      (item: { subscriptionId: string }) => item.subscriptionId === created.subscriptionId,
    );
    expect(listed).toEqual(withoutSecret);
    const patched = await api.patch(`${BASE}/${created.subscriptionId}`, {});
    expect(patched.body).not.toHaveProperty('secret');
    expect(
      JSON.stringify((await api.get(`${BASE}/${created.subscriptionId}/deliveries`)).body),
    ).not.toContain(created.secret);
  });

  it('takes the scheme in any case, as URLs do', async () => {
    const upper = await subscribe(api, { url: 'HTTPS://hooks.example.com/upper' });
    expect(upper.url).toBe('HTTPS://hooks.example.com/upper');
  });

  it('keeps the given events and active, and gives every subscription its own secret', async () => {
    const events = ['page.version.published', 'form.submitted'];
    const first = await subscribe(api, { url: 'http://hooks.example.com/a', events, active: false });
    expect(first).toMatchObject({ events, active: false });
    const none = await subscribe(api, { url: 'http://hooks.example.com/b', events: [] });
    expect(none).toMatchObject({ events: [], active: true });
    const all = await subscribe(api, { url: 'http://hooks.example.com/c', events: null });
    expect(all.events).toBeNull();
    expect(new Set([first.secret, none.secret, all.secret]).size).toBe(3);
  });

  it.each([
    ['no url', {}, '/body/url'],
    ['a null url', { url: null }, '/body/url'],
    ['a relative url', { url: '/hooks' }, '/body/url'],
    ['a url without a scheme', { url: 'hooks.example.com/tailor' }, '/body/url'],
    ['an ftp url', { url: 'ftp://hooks.example.com/tailor' }, '/body/url'],
    ['a mailto url', { url: 'mailto:hooks@example.com' }, '/body/url'],
    ['a url with credentials', { url: 'https://user:pass@hooks.example.com/' }, '/body/url'],
    ['a url with a user name', { url: 'https://user@hooks.example.com/' }, '/body/url'],
    ['a url with empty credentials', { url: 'http://:@hooks.example.com/' }, '/body/url'],
    ['a url with an empty user name', { url: 'http://@hooks.example.com/' }, '/body/url'],
    ['a url on port 0', { url: 'http://hooks.example.com:0/' }, '/body/url'],
    ['a url on port 00', { url: 'http://hooks.example.com:00/' }, '/body/url'],
    ['a url without a host', { url: 'http://' }, '/body/url'],
    ['a url with an impossible host', { url: 'http://300.1.1.1/hooks' }, '/body/url'],
    ['a url without //', { url: 'http:hooks.example.com' }, '/body/url'],
    ['a url over 2048 chars', { url: `https://hooks.example.com/${'a'.repeat(2048)}` }, '/body/url'],
    [
      'an unknown event kind',
      { url: 'https://hooks.example.com/', events: ['page.created'] },
      '/body/events/0',
    ],
    [
      'a repeated event kind',
      { url: 'https://hooks.example.com/', events: ['form.submitted', 'form.submitted'] },
      '/body/events',
    ],
    [
      'events that are not a list',
      { url: 'https://hooks.example.com/', events: 'form.submitted' },
      '/body/events',
    ],
    ['a null active', { url: 'https://hooks.example.com/', active: null }, '/body/active'],
    ['a non-boolean active', { url: 'https://hooks.example.com/', active: 'yes' }, '/body/active'],
    ['a secret', { url: 'https://hooks.example.com/', secret: 'whsec_bWluZQ==' }, '/body/secret'],
    ['an unknown field', { url: 'https://hooks.example.com/', enabled: true }, '/body/enabled'],
  ])('rejects %s with 400 and creates nothing', async (_label, body, path) => {
    const client = await server.newTenant();
    const response = await client.post(BASE, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect((await client.get(BASE)).body.totalCount).toBe(0);
  });

  it.each(SCRIPT_URLS)('rejects the script url %j with 400 at /body/url and creates nothing', async (url) => {
    const client = await server.newTenant();
    const response = await client.post(BASE, { url });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain('/body/url');
    expect((await client.get(BASE)).body.totalCount).toBe(0);
  });

  it('refuses a body that is not JSON (415) and JSON that does not parse (400)', async () => {
    const client = await server.newTenant();
    const text = await client.request('POST', BASE, {
      raw: 'url=https://hooks.example.com/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(text.status).toBe(415);
    const broken = await client.request('POST', BASE, {
      raw: '{"url":',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('invalid_json');
    expect((await client.get(BASE)).body.totalCount).toBe(0);
  });
});

describe('GET /v0/webhook_subscriptions', () => {
  it('lists newest first, in pages, with an exact total', async () => {
    const client = await server.newTenant();
    const made = [];
    for (const name of ['a', 'b', 'c'])
      made.push(await subscribe(client, { url: `https://hooks.example.com/${name}` }));
    const first = await client.get(`${BASE}?limit=2`);
    expect(first.status).toBe(200);
    expectSchema(WebhookSubscriptionList, first.body);
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 3 });
    expect(first.body.items.map((item: { url: string }) => item.url)).toEqual([
      'https://hooks.example.com/c',
      'https://hooks.example.com/b',
    ]);
    for (const item of first.body.items) expect(item).not.toHaveProperty('secret');
    const second = await client.get(`${BASE}?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 3 });
    expect(second.body.items.map((item: { subscriptionId: string }) => item.subscriptionId)).toEqual([
      made[0]?.subscriptionId,
    ]);
    expect((await client.get(BASE)).body.items).toHaveLength(3);
  });

  it.each([['limit=0'], ['limit=101'], ['limit=ten'], ['cursor=forged.cursor']])(
    'rejects %s with 400',
    async (query) => {
      const response = await api.get(`${BASE}?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe(query.startsWith('cursor') ? 'invalid_cursor' : 'validation_failed');
    },
  );
});

describe('PATCH /v0/webhook_subscriptions/{id}', () => {
  async function fresh(client = api) {
    return subscribe(client, { url: 'https://hooks.example.com/one', events: ['form.submitted'] });
  }

  it('changes url, events and active; an omitted field is unchanged; updatedAt moves', async () => {
    const created = await fresh();
    const url = `${BASE}/${created.subscriptionId}`;
    const before = (await api.get(url)).body;
    await new Promise((resolve) => setTimeout(resolve, 5));

    const moved = await api.patch(url, { url: 'https://hooks.example.com/two' });
    expect(moved.status).toBe(200);
    expectSchema(WebhookSubscription, moved.body);
    expect(moved.body).toMatchObject({
      subscriptionId: created.subscriptionId,
      url: 'https://hooks.example.com/two',
      events: ['form.submitted'],
      active: true,
      createdAt: before.createdAt,
    });
    expect(millis(moved.body.updatedAt)).toBeGreaterThan(millis(before.updatedAt));

    const events = await api.patch(url, { events: ['page.version.created', 'form.enriched'] });
    expect(events.body).toMatchObject({
      url: 'https://hooks.example.com/two',
      events: ['page.version.created', 'form.enriched'],
      active: true,
    });
    expect((await api.patch(url, { events: null })).body.events).toBeNull();
    expect((await api.patch(url, { events: [] })).body.events).toEqual([]);
    const off = await api.patch(url, { active: false });
    expect(off.body).toMatchObject({ active: false, events: [], url: 'https://hooks.example.com/two' });
    const all = await api.patch(url, { url: 'https://hooks.example.com/three', events: null, active: true });
    expect(all.body).toMatchObject({ url: 'https://hooks.example.com/three', events: null, active: true });
    expect((await api.get(url)).body).toEqual(all.body);
  });

  it.each([
    ['a null url', { url: null }, '/body/url'],
    ['a null active', { active: null }, '/body/active'],
    ['a non-boolean active', { active: 1 }, '/body/active'],
    ['an unknown event kind', { events: ['page.version.deleted'] }, '/body/events/0'],
    ['a repeated event kind', { events: ['form.enriched', 'form.enriched'] }, '/body/events'],
    ['events as a string', { events: 'form.enriched' }, '/body/events'],
    ['a relative url', { url: 'hooks' }, '/body/url'],
    ['a non-http url', { url: 'ws://hooks.example.com/' }, '/body/url'],
    ['a url with credentials', { url: 'https://me:secret@hooks.example.com/' }, '/body/url'],
    ['a url without a host', { url: 'https://' }, '/body/url'],
    ['an unknown field', { secret: 'whsec_bWluZQ==' }, '/body/secret'],
  ])('rejects %s with 400 and changes nothing', async (_label, body, path) => {
    const created = await fresh();
    const url = `${BASE}/${created.subscriptionId}`;
    const before = (await api.get(url)).body;
    // A valid change next to the invalid one must not be applied either.
    const response = await api.patch(url, { ...('active' in body ? {} : { active: false }), ...body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect((await api.get(url)).body).toEqual(before);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of ['whsub_00000000000000000000000000', 'nope']) {
      const response = await api.patch(`${BASE}/${id}`, { active: false });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });
});

describe('DELETE, rotate_secret and deliveries', () => {
  it('DELETE removes the subscription; a second DELETE is 404', async () => {
    const created = await subscribe(api, { url: 'https://hooks.example.com/gone' });
    const url = `${BASE}/${created.subscriptionId}`;
    const response = await api.delete(url);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ subscriptionId: created.subscriptionId, deleted: true });
    expect((await api.get(url)).status).toBe(404);
    expect((await api.get(`${url}/deliveries`)).status).toBe(404);
    expect((await api.delete(url)).status).toBe(404);
  });

  it('rotate_secret returns a new secret once and moves updatedAt', async () => {
    const created = await subscribe(api, { url: 'https://hooks.example.com/rotate' });
    const before = (await api.get(`${BASE}/${created.subscriptionId}`)).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await api.post(`${BASE}/${created.subscriptionId}/rotate_secret`);
    expect(response.status).toBe(200);
    expectSchema(WebhookSubscriptionWithSecret, response.body);
    expect(response.body.secret).toMatch(/^whsec_/);
    expect(response.body.secret).not.toBe(created.secret);
    expect(millis(response.body.updatedAt)).toBeGreaterThan(millis(before.updatedAt));
    const { secret: _secret, ...rest } = response.body;
    expect((await api.get(`${BASE}/${created.subscriptionId}`)).body).toEqual(rest);
    expect((await api.post(`${BASE}/${created.subscriptionId}/rotate_secret`, {})).status).toBe(200);
    const withField = await api.post(`${BASE}/${created.subscriptionId}/rotate_secret`, { secret: 'mine' });
    expect(withField.status).toBe(400);
  });

  it('GET …/deliveries lists one delivery per event, newest first, in pages', async () => {
    const hooks = await receiver();
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url });
    const empty = await deliveries(client, created.subscriptionId);
    expect(empty).toEqual({ hasMore: false, items: [], nextCursor: null, totalCount: 0 });
    await createAudience(client, { autoPublish: true });
    await settle();

    const first = await deliveries(client, created.subscriptionId, '?limit=2');
    expect(first).toMatchObject({ hasMore: true, totalCount: 3 });
    const second = await deliveries(
      client,
      created.subscriptionId,
      `?limit=2&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
    );
    expect(second).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 3 });
    const items = [...first.items, ...second.items];
    expect(items.map((item) => item.eventType)).toEqual([...VERSION_EVENTS].reverse());
    expect(items.map((item) => item.deliveryId)).toEqual(
      items.map((item) => item.deliveryId).sort((a, b) => b.localeCompare(a)),
    );
    for (const item of items) {
      expect(item.deliveryId).toMatch(/^delivery_[a-z0-9]{26}$/);
      expect(item.eventId).toMatch(/^evt_[a-z0-9]{26}$/);
    }

    // A cursor of one subscription's deliveries does not open another's.
    const other = await subscribe(client, { url: hooks.url });
    const foreign = await client.get(
      `${BASE}/${other.subscriptionId}/deliveries?limit=2&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('invalid_cursor');
  });
});

describe('tenant isolation', () => {
  it('every endpoint answers 404 for a subscription of another tenant and changes nothing', async () => {
    const hooks = await receiver();
    const owner = await server.newTenant();
    const created = await subscribe(owner, { url: hooks.url });
    await createAudience(owner);
    await settle();
    const url = `${BASE}/${created.subscriptionId}`;
    const before = (await owner.get(url)).body;

    const intruder = await server.newTenant();
    const answers = [
      await intruder.get(url),
      await intruder.patch(url, { url: 'https://attacker.example.com/', active: false }),
      await intruder.post(`${url}/rotate_secret`),
      await intruder.get(`${url}/deliveries`),
      await intruder.delete(url),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('not_found');
    }
    expect((await intruder.get(BASE)).body).toMatchObject({ items: [], totalCount: 0 });
    expect((await owner.get(url)).body).toEqual(before);

    // The owner's secret still signs: the rotation attempt did nothing.
    await createAudience(owner);
    await settle();
    const last = hooks.received.at(-1);
    expect(last).toBeDefined();
    if (last) expect(() => verify(created.secret, last)).not.toThrow();
    expect((await deliveries(owner, created.subscriptionId)).totalCount).toBeGreaterThan(0);
  });

  it("an event of one tenant is never delivered to another tenant's subscription", async () => {
    const hooks = await receiver();
    const quiet = await server.newTenant();
    const listening = await subscribe(quiet, { url: hooks.url });
    await createAudience(await server.newTenant(), { autoPublish: true });
    await settle();
    expect(hooks.received).toHaveLength(0);
    expect((await deliveries(quiet, listening.subscriptionId)).totalCount).toBe(0);
  });
});

describe('receiver URL rules', () => {
  it.each(NON_PUBLIC_URLS)(
    'refuses %s receiver (%s) with 400 when private receivers are not allowed',
    async (_label, target) => {
      const client = await strict.newTenant();
      const created = await client.post(BASE, { url: target });
      expect(created.status).toBe(400);
      expect(created.body.errors.map((error: { path: string }) => error.path)).toEqual(['/body/url']);
      // Whoever tries Tailor with a receiver on their own machine learns the setting that allows it.
      expect(JSON.stringify(created.body.errors)).toContain('TAILOR_WEBHOOK_ALLOW_PRIVATE=true');
      expect((await client.get(BASE)).body.totalCount).toBe(0);

      const existing = await subscribe(client, { url: 'https://93.184.215.14/hooks' });
      const moved = await client.patch(`${BASE}/${existing.subscriptionId}`, { url: target });
      expect(moved.status).toBe(400);
      expect((await client.get(`${BASE}/${existing.subscriptionId}`)).body.url).toBe(
        'https://93.184.215.14/hooks',
      );
    },
  );

  it.each(NON_PUBLIC_URLS)(
    'allows %s receiver (%s) when private receivers are allowed',
    async (_label, target) => {
      const client = await server.newTenant();
      const created = await subscribe(client, { url: target });
      expect(created.url).toBe(target);
    },
  );

  it('allows public addresses when private receivers are not allowed', async () => {
    const client = await strict.newTenant();
    for (const target of ['https://93.184.215.14/hooks', 'http://[2606:4700:4700::1111]:8443/hooks?x=1']) {
      expect((await subscribe(client, { url: target })).url).toBe(target);
    }
  });

  it.each([
    ['an IP literal', (url: string) => url],
    ['a host name', (url: string) => url.replace('127.0.0.1', 'localhost')],
  ])(
    'checks again when connecting (%s): a private receiver saved while allowed gets nothing once refused',
    async (_label, address) => {
      const hooks = await receiver();
      const client = await server.newTenant();
      const created = await subscribe(client, { url: address(hooks.url), events: ['page.version.created'] });
      await createAudience(client);
      const refusing = server.worker({ env: { TAILOR_WEBHOOK_ALLOW_PRIVATE: 'false' } });
      await refusing.drain();
      expect(hooks.received).toHaveLength(0);
      const [delivery] = (await deliveries(client, created.subscriptionId)).items;
      expect(delivery).toMatchObject({
        state: 'pending',
        attempts: 1,
        lastStatusCode: null,
        deliveredAt: null,
      });
      expect(delivery?.lastError).toMatch(/not a public address/);
      expect(delivery?.nextAttemptAt).toMatch(TIMESTAMP);
    },
  );
});

describe('delivery', () => {
  it('delivers created, processed and published of an auto-published audience, signed (Standard Webhooks)', async () => {
    const hooks = await receiver();
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url });
    const audience = await createAudience(client, { autoPublish: true });
    const started = Date.now();
    await settle();

    expect(hooks.received.map((entry) => JSON.parse(entry.body).type).sort()).toEqual(VERSION_EVENTS);
    for (const entry of hooks.received) {
      const event = JSON.parse(entry.body);
      expect(Object.keys(event).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
      expect(event.id).toMatch(/^evt_[a-z0-9]{26}$/);
      expect(entry.headers['webhook-id']).toBe(event.id);
      expect(event.createdAt).toMatch(TIMESTAMP);
      expect(entry.headers['content-type']).toBe('application/json');
      expect(entry.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
      expect(Math.abs(Number(entry.headers['webhook-timestamp']) * 1000 - started)).toBeLessThan(MINUTE);
      expect(entry.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Object.keys(event.data).sort()).toEqual(['audienceId', 'pageId', 'version']);
      expect(event.data).toMatchObject({ pageId: audience.pageId, audienceId: audience.audienceId });
      expectSchema(AudienceVersion, event.data.version);
      expect(event.data.version).toMatchObject({
        versionId: audience.latestVersion.versionId,
        versionNumber: 1,
        audienceId: audience.audienceId,
      });
      expect(event.data.version).not.toHaveProperty('content');

      expect(verify(created.secret, entry)).toEqual(event);
      expect(() =>
        verify(created.secret, entry, entry.body.replace(audience.audienceId, 'audience_x')),
      ).toThrow();
      expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, entry)).toThrow();
    }
    const [sample] = hooks.received;
    if (!sample) throw new Error('nothing was delivered');
    expect(verifyByHand(created.secret, webhookHeaders(sample), sample.body)).toBe(true);
    expect(verifyByHand(created.secret, webhookHeaders(sample), `${sample.body} `)).toBe(false);
    expect(
      verifyByHand(created.secret, { ...webhookHeaders(sample), 'webhook-id': 'evt_other' }, sample.body),
    ).toBe(false);

    const byType = Object.fromEntries(hooks.events().map((event) => [event.type, event.data.version]));
    expect(byType['page.version.created']).not.toHaveProperty('becameDraftAt');
    expect(byType['page.version.created'].queuedAt).toMatch(TIMESTAMP);
    expect(byType['page.version.processed'].becameDraftAt).toMatch(TIMESTAMP);
    expect(byType['page.version.processed']).not.toHaveProperty('publishedAt');
    expect(byType['page.version.published'].publishedAt).toMatch(TIMESTAMP);

    const log = await deliveries(client, created.subscriptionId);
    expect(log.totalCount).toBe(3);
    for (const item of log.items) {
      expect(item).toMatchObject({
        state: 'succeeded',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      });
      expect(item.deliveredAt).toMatch(TIMESTAMP);
    }
    expect(log.items.map((item) => item.eventId).sort()).toEqual(
      hooks.received.map((entry) => entry.headers['webhook-id']).sort(),
    );
  });

  it('sends each kind only to subscriptions that are active and select it', async () => {
    const client = await server.newTenant();
    const everything = await receiver();
    const published = await receiver();
    const nothing = await receiver();
    const inactive = await receiver();
    const forms = await receiver();
    const subscriptions = [
      await subscribe(client, { url: everything.url, events: null }),
      await subscribe(client, { url: published.url, events: ['page.version.published'] }),
      await subscribe(client, { url: nothing.url, events: [] }),
      await subscribe(client, { url: inactive.url, active: false }),
      await subscribe(client, { url: forms.url, events: ['form.submitted', 'form.enriched'] }),
    ];
    await createAudience(client, { autoPublish: true });
    await settle();
    expect(
      everything
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(VERSION_EVENTS);
    expect(published.events().map((event) => event.type)).toEqual(['page.version.published']);
    for (const silent of [nothing, inactive, forms]) expect(silent.received).toHaveLength(0);
    const counts = [];
    for (const subscription of subscriptions) {
      counts.push((await deliveries(client, subscription.subscriptionId)).totalCount);
    }
    expect(counts).toEqual([3, 1, 0, 0, 0]);

    // The selection applies to events emitted after a change.
    await client.patch(`${BASE}/${subscriptions[2]?.subscriptionId}`, { events: ['page.version.created'] });
    await client.patch(`${BASE}/${subscriptions[3]?.subscriptionId}`, { active: true });
    await createAudience(client);
    await settle();
    expect(nothing.events().map((event) => event.type)).toEqual(['page.version.created']);
    expect(
      inactive
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(['page.version.created', 'page.version.processed']);
  });

  it('a subscription deactivated or deleted between the event and its delivery gets nothing', async () => {
    const client = await server.newTenant();
    const paused = await receiver();
    const deleted = await receiver();
    const pausedSubscription = await subscribe(client, { url: paused.url, events: ['page.version.created'] });
    const deletedSubscription = await subscribe(client, {
      url: deleted.url,
      events: ['page.version.created'],
    });
    await createAudience(client);
    expect((await deliveries(client, pausedSubscription.subscriptionId)).items[0]?.state).toBe('pending');
    await client.patch(`${BASE}/${pausedSubscription.subscriptionId}`, { active: false });
    expect((await client.delete(`${BASE}/${deletedSubscription.subscriptionId}`)).status).toBe(200);
    await server.worker().drain(Date.now() + DAY);
    expect(paused.received).toHaveLength(0);
    expect(deleted.received).toHaveLength(0);
    const [delivery] = (await deliveries(client, pausedSubscription.subscriptionId)).items;
    expect(delivery).toMatchObject({ state: 'failed', attempts: 0, nextAttemptAt: null, deliveredAt: null });
    expect(delivery?.lastError).toMatch(/no longer active/);
  });

  it('after a rotation, signs with both secrets for the overlap, then with the new one only', async () => {
    const hooks = await receiver();
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    const rotated = (await client.post(`${BASE}/${created.subscriptionId}/rotate_secret`)).body;
    await createAudience(client);
    await settle();
    const [during] = hooks.received;
    if (!during) throw new Error('nothing was delivered');
    const signatures = String(during.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => verify(created.secret, during)).not.toThrow();
    expect(() => verify(rotated.secret, during)).not.toThrow();
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, during)).toThrow();

    // Once the overlap is over, the old secret no longer signs.
    await anyTables(server.database)
      .updateTable('webhook_subscriptions')
      .set({ previous_secret_until: Date.now() - 1 })
      .where('id', '=', created.subscriptionId)
      .execute();
    await createAudience(client);
    await settle();
    const after = hooks.received[1];
    if (!after) throw new Error('nothing was delivered');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verify(rotated.secret, after)).not.toThrow();
    expect(() => verify(created.secret, after)).toThrow();
  });
});

describe('retries', () => {
  it('retries a failed attempt with the same webhook-id; the log shows the attempts', async () => {
    const hooks = await receiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    const worker = server.worker();
    const before = Date.now();
    await worker.drain();
    expect(hooks.received).toHaveLength(1);
    const [pending] = (await deliveries(client, created.subscriptionId)).items;
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: 500, deliveredAt: null });
    expect(pending?.lastError).toMatch(/500/);
    // The first wait of the default schedule is 5 s, ±20% jitter.
    expect(millis(pending?.nextAttemptAt ?? null)).toBeGreaterThanOrEqual(before + 4_000);
    expect(millis(pending?.nextAttemptAt ?? null)).toBeLessThanOrEqual(Date.now() + 6_000);

    expect(await failingSince(created.subscriptionId)).not.toBeNull();
    await worker.drain();
    expect(hooks.received).toHaveLength(1);
    await worker.drain(Date.now() + 10_000);
    expect(hooks.received).toHaveLength(2);
    const [first, second] = hooks.received;
    if (!first || !second) throw new Error('two attempts expected');
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(() => verify(created.secret, second)).not.toThrow();
    const [done] = (await deliveries(client, created.subscriptionId)).items;
    expect(done).toMatchObject({
      state: 'succeeded',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      eventId: first.headers['webhook-id'],
    });
    expect(done?.deliveredAt).toMatch(TIMESTAMP);
    // The success ends the subscription's failing streak.
    expect(await failingSince(created.subscriptionId)).toBeNull();
  });

  it.each([
    [429, 'seconds', () => '120'],
    [503, 'seconds', () => '120'],
    [503, 'an HTTP date', () => new Date(Date.now() + 120_000).toUTCString()],
  ])('honours Retry-After on %i (%s)', async (status, _form, retryAfter) => {
    const hooks = await receiver((_request, index) =>
      index === 0 ? { status, headers: { 'retry-after': retryAfter() } } : { status: 204 },
    );
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    const worker = server.worker();
    const before = Date.now();
    await worker.drain();
    const after = Date.now();
    const [pending] = (await deliveries(client, created.subscriptionId)).items;
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: status });
    const next = millis(pending?.nextAttemptAt ?? null);
    // An HTTP date has whole seconds.
    expect(next).toBeGreaterThanOrEqual(before + 119_000);
    expect(next).toBeLessThanOrEqual(after + 120_000);

    await worker.drain(before + 60_000);
    expect(hooks.received).toHaveLength(1);
    await worker.drain(after + 121_000);
    expect(hooks.received).toHaveLength(2);
    expect((await deliveries(client, created.subscriptionId)).items[0]?.state).toBe('succeeded');
  });

  it('ignores Retry-After on other statuses: the schedule applies', async () => {
    const hooks = await receiver(() => ({ status: 500, headers: { 'retry-after': '3600' } }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    await settle();
    const [pending] = (await deliveries(client, created.subscriptionId)).items;
    expect(millis(pending?.nextAttemptAt ?? null)).toBeLessThanOrEqual(Date.now() + 6_000);
  });

  it('marks the delivery failed after the last attempt of the schedule (TAILOR_WEBHOOK_RETRY_SCHEDULE)', async () => {
    const hooks = await receiver(() => ({ status: 500 }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    const worker = server.worker({ env: { TAILOR_WEBHOOK_RETRY_SCHEDULE: '1s,1s' } });
    await worker.drain();
    expect(hooks.received).toHaveLength(1);
    const [pending] = (await deliveries(client, created.subscriptionId)).items;
    expect(millis(pending?.nextAttemptAt ?? null)).toBeLessThanOrEqual(Date.now() + 1_200);

    await worker.drain(Date.now() + MINUTE);
    expect(hooks.received).toHaveLength(3);
    expect(new Set(hooks.received.map((entry) => entry.headers['webhook-id'])).size).toBe(1);
    const [failed] = (await deliveries(client, created.subscriptionId)).items;
    expect(failed).toMatchObject({
      state: 'failed',
      attempts: 3,
      lastStatusCode: 500,
      nextAttemptAt: null,
      deliveredAt: null,
    });
    await worker.drain(Date.now() + 30 * DAY);
    expect(hooks.received).toHaveLength(3);
    // One delivery failing for less than 5 days leaves the subscription on.
    expect((await client.get(`${BASE}/${created.subscriptionId}`)).body.active).toBe(true);
  });

  it('deactivates a subscription whose deliveries have failed for 5 days; switching it on resumes', async () => {
    let status = 500;
    const hooks = await receiver(() => ({ status }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await anyTables(server.database)
      .updateTable('webhook_subscriptions')
      .set({ failing_since: Date.now() - 5 * DAY - MINUTE })
      .where('id', '=', created.subscriptionId)
      .execute();
    await createAudience(client);
    const worker = server.worker({ env: { TAILOR_WEBHOOK_RETRY_SCHEDULE: '1s' } });
    await worker.drain(Date.now() + MINUTE);
    expect(hooks.received).toHaveLength(2);
    expect((await client.get(`${BASE}/${created.subscriptionId}`)).body.active).toBe(false);

    status = 204;
    const on = await client.patch(`${BASE}/${created.subscriptionId}`, { active: true });
    expect(on.body.active).toBe(true);
    await createAudience(client);
    await worker.drain();
    expect(hooks.received).toHaveLength(3);
    expect(await failingSince(created.subscriptionId)).toBeNull();
  });

  it('410 Gone deactivates the subscription and stops retrying', async () => {
    const hooks = await receiver(() => ({ status: 410 }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    await createAudience(client);
    const worker = server.worker({ concurrency: 1 });
    await worker.drain();
    expect(hooks.received).toHaveLength(1);
    const subscription = (await client.get(`${BASE}/${created.subscriptionId}`)).body;
    expect(subscription.active).toBe(false);
    const log = (await deliveries(client, created.subscriptionId)).items;
    expect(log.map((item) => item.state)).toEqual(['failed', 'failed']);
    const gone = log.find((item) => item.attempts === 1);
    expect(gone).toMatchObject({ lastStatusCode: 410, nextAttemptAt: null });
    expect(log.find((item) => item.attempts === 0)?.lastError).toMatch(/no longer active/);

    await worker.drain(Date.now() + 30 * DAY);
    expect(hooks.received).toHaveLength(1);
    await createAudience(client);
    await worker.drain();
    expect(hooks.received).toHaveLength(1);
    expect((await deliveries(client, created.subscriptionId)).totalCount).toBe(2);
  });

  it('does not follow a redirect: a 3xx is a failed attempt and the target gets nothing', async () => {
    const target = await receiver();
    const hooks = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    await settle();
    expect(hooks.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const [pending] = (await deliveries(client, created.subscriptionId)).items;
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: 307, deliveredAt: null });
  });

  it('fails an attempt that gets no answer within TAILOR_WEBHOOK_TIMEOUT_MS', async () => {
    const hooks = await receiver((_request, index) => (index === 0 ? 'hang' : { status: 204 }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url, events: ['page.version.created'] });
    await createAudience(client);
    const worker = server.worker({ env: { TAILOR_WEBHOOK_TIMEOUT_MS: '300' } });
    const started = Date.now();
    await worker.drain();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(hooks.received).toHaveLength(1);
    const [pending] = (await deliveries(client, created.subscriptionId)).items;
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: null, deliveredAt: null });
    expect(pending?.lastError).toMatch(/no answer within 300 ms/);

    await worker.drain(Date.now() + MINUTE);
    expect(hooks.received).toHaveLength(2);
    expect((await deliveries(client, created.subscriptionId)).items[0]).toMatchObject({
      state: 'succeeded',
      attempts: 2,
    });
  });
});

describe('restarts', () => {
  it('deliveries leased to a worker that died are delivered by another worker: none lost', async () => {
    const hooks = await receiver();
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url });
    await createAudience(client, { autoPublish: true });
    const now = Date.now();
    const { locks } = server.database;
    const db = anyTables(server.database);
    const leased = await claimJobs(db, locks, 'worker_that_died', 1000, now, 10_000);
    expect(leased.some((job) => job.kind === DELIVER_JOB)).toBe(true);

    const survivor = server.worker();
    await survivor.drain(now);
    expect(hooks.received).toHaveLength(0);
    await survivor.drain(now + 11_000);
    expect(
      hooks
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(VERSION_EVENTS);
    const log = await deliveries(client, created.subscriptionId);
    expect(log.items.map((item) => item.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('deliveries pending when a worker stops are delivered by the next one', async () => {
    const hooks = await receiver((_request, index) => ({ status: index === 0 ? 503 : 204 }));
    const client = await server.newTenant();
    const created = await subscribe(client, { url: hooks.url });
    for (let i = 0; i < 3; i++) await createAudience(client, { autoPublish: true });
    const first = server.worker();
    first.start();
    await first.stop();

    await server.worker().drain(Date.now() + MINUTE);
    const log = await deliveries(client, created.subscriptionId);
    expect(log.totalCount).toBe(9);
    expect(log.items.every((item) => item.state === 'succeeded')).toBe(true);
    const ids = new Set(hooks.received.map((entry) => entry.headers['webhook-id']));
    expect([...ids].sort()).toEqual(log.items.map((item) => item.eventId).sort());
  });
});
