import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { Signer } from '../../src/shared/signing.ts';
import { ENRICH_JOB } from '../../src/workflows/enrichment/service.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  type Client,
  onPostgres,
  startServer,
  TEST_SECRET,
  type TestServer,
  testDatabase,
} from '../helpers/server.ts';

/** The samples of a scrape, each as its name with its labels in the order given, and its value. */
type Scrape = Map<string, number>;

function parse(text: string): Scrape {
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

function sample(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  return pairs.length > 0 ? `${name}{${pairs.join(',')}}` : name;
}

async function scrape(server: TestServer, headers?: Record<string, string>): Promise<Scrape> {
  const response = await server.anonymous().get('/metrics', { headers });
  expect(response.status, String(response.body)).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(response.body);
}

/** How much each sample moved between two scrapes (a sample missing before counts from 0). */
function moved(before: Scrape, after: Scrape, key: string): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}

const signer = new Signer(TEST_SECRET);

describe('GET /metrics', () => {
  let server: TestServer;
  let api: Client;

  beforeAll(async () => {
    server = await startServer();
    api = await server.newTenant();
  });
  afterAll(() => server.close());

  it('counts requests under their route pattern and status class, never the URL', async () => {
    const person = await api.post('/v0/persons', { name: 'Ada' });
    expect(person.status).toBe(201);
    const route = { method: 'GET', route: '/v0/persons/:person_id', status_class: '2xx' };
    const missing = { method: 'GET', route: 'unmatched', status_class: '4xx' };
    const before = await scrape(server);
    expect((await api.get(`/v0/persons/${person.body.personId}`)).status).toBe(200);
    expect((await api.get(`/v0/persons/${person.body.personId}`)).status).toBe(200);
    expect((await api.get(`/no/such/${randomUUID()}`)).status).toBe(404);
    const after = await scrape(server);

    expect(moved(before, after, sample('tailor_http_requests_total', route))).toBe(2);
    expect(moved(before, after, sample('tailor_http_request_duration_seconds_count', route))).toBe(2);
    expect(moved(before, after, sample('tailor_http_requests_total', missing))).toBe(1);
    expect(after.get(sample('tailor_http_request_duration_seconds_bucket', { le: '+Inf', ...route }))).toBe(
      after.get(sample('tailor_http_request_duration_seconds_count', route)),
    );
    const keys = [...after.keys()].join('\n');
    expect(keys).not.toContain(person.body.personId);
    expect(keys).not.toContain('/no/such');
  });

  it('counts public events and forms, jobs queued by kind, and webhook deliveries from the database', async () => {
    const page = await publishLinkedPage(server, api, { personalize: false, path: `/m-${randomUUID()}` });
    const token = issueToken(signer, {
      tenantId: api.tenantId,
      pageId: page.pageId,
      audienceId: page.audienceId,
      pageLinkId: page.pageLinkId,
      arm: 'personalized',
      expiresAt: Date.now() + TOKEN_VALID_MS,
    });
    const receiver = await startReceiver();
    try {
      const subscription = await api.post('/v0/webhook_subscriptions', {
        url: receiver.url,
        events: ['form.submitted'],
      });
      expect(subscription.status).toBe(201);
      await server.worker().drain();
      const before = await scrape(server);
      const at = Date.now();
      const events = await server.anonymous().post('/v0/public/events', {
        token,
        sessionId: randomUUID(),
        events: [
          { type: 'session_start', at },
          { type: 'scroll', at, depth: 40 },
        ],
      });
      expect(events.status).toBe(200);
      const form = await server.anonymous().post('/v0/public/forms', {
        token,
        email: 'ada@example.com',
        fields: {},
      });
      expect(form.status, JSON.stringify(form.body)).toBe(201);
      const queued = await scrape(server);

      expect(moved(before, queued, 'tailor_public_events_ingested_total')).toBe(events.body.accepted);
      expect(events.body.accepted).toBe(2);
      expect(moved(before, queued, 'tailor_public_forms_ingested_total')).toBe(1);
      expect(queued.get(sample('tailor_jobs_queued', { kind: ENRICH_JOB }))).toBe(1);
      expect(
        queued.get(sample('tailor_jobs_oldest_queued_age_seconds', { kind: ENRICH_JOB })),
      ).toBeGreaterThanOrEqual(0);
      expect(moved(before, queued, sample('tailor_webhook_deliveries', { state: 'pending' }))).toBe(1);

      while ((await server.worker().drain()) > 0);
      const settled = await scrape(server);
      expect(settled.has(sample('tailor_jobs_queued', { kind: ENRICH_JOB }))).toBe(false);
      expect(moved(before, settled, sample('tailor_webhook_deliveries', { state: 'pending' }))).toBe(0);
      expect(moved(before, settled, sample('tailor_webhook_deliveries', { state: 'succeeded' }))).toBe(1);
      expect(receiver.events().map((event) => event.type)).toEqual(['form.submitted']);
      expect(settled.get('tailor_database_up')).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it("includes the process's default metrics, and the pool's use on PostgreSQL only", async () => {
    const metrics = await scrape(server);
    expect(metrics.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metrics.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(metrics.has('tailor_database_pool_connections')).toBe(onPostgres);
    if (onPostgres) expect(metrics.get('tailor_database_pool_connections')).toBeGreaterThan(0);
  });

  it('still answers while the database is away, leaving out the gauges read from it', async () => {
    const database = await testDatabase();
    const node = await startServer({ database });
    try {
      await database.close();
      expect((await node.anonymous().get('/healthz')).status).toBe(200);
      const metrics = await scrape(node);
      expect(metrics.get('tailor_database_up')).toBe(0);
      const names = [...metrics.keys()];
      expect(names.filter((name) => /^tailor_(jobs|webhook)_/.test(name))).toEqual([]);
      expect(names.some((name) => name.startsWith('tailor_http_requests_total{'))).toBe(true);
    } finally {
      await node.close();
    }
  });

  it('answers loopback clients only while no token is set (403 problem to others)', async () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const response = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      expect(response.statusCode, remoteAddress).toBe(200);
    }
    for (const remoteAddress of ['10.0.0.1', '::ffff:10.0.0.1', '2001:db8::1']) {
      const response = await server.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      expect(response.statusCode, remoteAddress).toBe(403);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json().code).toBe('forbidden');
    }
  });

  it('is not in the OpenAPI document', async () => {
    const document = await server.anonymous().get('/v0/openapi.json');
    expect(Object.keys(document.body.paths)).not.toContain('/metrics');
  });
});

describe('GET /metrics with TAILOR_METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ metricsToken: token });
  });
  afterAll(() => server.close());

  it.each([
    ['no Authorization', undefined],
    ['a wrong token', `Bearer ${token}x`],
    ['a prefix of the token', `Bearer ${token.slice(0, 8)}`],
    ['another scheme', `Basic ${token}`],
  ])('401 unauthorized with %s', async (_case, authorization) => {
    const response = await server
      .anonymous()
      .get('/metrics', { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
  });

  it('200 with the token, from any address', async () => {
    await scrape(server, { authorization: `Bearer ${token}` });
    const response = await server.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '10.0.0.1',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
  });
});
