import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH } from '../../src/http/bodies.ts';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import type { FormsTables } from '../../src/resources/forms/tables.ts';
import { Signer } from '../../src/shared/signing.ts';
import { type Client, type Response, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

// decisions §10: text no database keeps as sent (U+0000, unpaired surrogates) and bytes that are
// not UTF-8 are refused the same way on SQLite and PostgreSQL, and nothing is stored.

let server: TestServer;
let api: Client;
let paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  paths = (await api.get('/v0/openapi.json')).body.paths;
});
afterAll(() => server.close());

function expectProblem(response: Response, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body.code).toBe(code);
}

async function createPage(client = api) {
  const response = await client.post('/v0/pages', {
    name: 'Launch',
    pageContext: 'Tailor helps retailers grow.',
    brandId: 'b',
    actions: [{ buttonTitle: 'Talk to sales', actionType: 'form' }],
    actionCardWidgets: [],
    scripts: [],
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

/** Every operation with a path parameter, each parameter replaced by `value`. */
function operationsWithParameter(value: string): [string, string][] {
  const found: [string, string][] = [];
  for (const [path, operations] of Object.entries(paths)) {
    if (!path.includes('{')) continue;
    for (const method of Object.keys(operations)) {
      found.push([method.toUpperCase(), path.replace(/\{[^}]+\}/g, value)]);
    }
  }
  return found;
}

async function personCount(client = api): Promise<number> {
  return (await client.get('/v0/persons?limit=1')).body.totalCount;
}

describe('U+0000 and unpaired surrogates', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate', '\udc00'],
  ])('refuses %s in a body with 400 validation_failed, storing nothing', async (_, text) => {
    const before = await personCount();
    const response = await api.post('/v0/persons', { email: 'nul@example.com', name: text });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual([{ path: '/body/name', message: expect.any(String) }]);
    expect(await personCount()).toBe(before);
  });

  it('refuses NUL in an object key and deep in an array', async () => {
    const keyed = await api.post('/v0/pages', { 'na\u0000me': 'x' });
    expectProblem(keyed, 400, 'validation_failed');
    const deep = await api.post('/v0/pages', {
      name: 'Launch',
      pageContext: 'ctx',
      brandId: 'b',
      actions: [{ buttonTitle: 'Go\u0000', actionType: 'form' }],
      actionCardWidgets: [],
      scripts: [],
    });
    expectProblem(deep, 400, 'validation_failed');
    expect(deep.body.errors[0].path).toBe('/body/actions/0/buttonTitle');
  });

  it('refuses NUL in PATCH and PUT bodies, leaving the row as it was', async () => {
    const page = await createPage();
    expectProblem(await api.patch(`/v0/pages/${page.pageId}`, { name: 'x\u0000' }), 400, 'validation_failed');
    expect((await api.get(`/v0/pages/${page.pageId}`)).body.name).toBe('Launch');
    const put = await api.request('PUT', '/v0/brands/acme', { body: { name: 'Acme\u0000' } });
    expectProblem(put, 400, 'validation_failed');
    expectProblem(await api.get('/v0/brands/acme'), 404, 'not_found');
  });

  it('answers 404 not_found for NUL, a lone surrogate or bad percent-encoding in any path parameter', async () => {
    for (const value of ['%00', 'a%00b', '%ED%A0%80', '%ff%fe']) {
      for (const [method, url] of operationsWithParameter(value)) {
        const body = method === 'GET' || method === 'DELETE' ? undefined : {};
        const response = await api.request(method, url, { body });
        expect([method, url, response.status]).toEqual([method, url, 404]);
        expect(response.body.code).toBe('not_found');
        expect(response.headers.get('content-type')).toContain('application/problem+json');
      }
    }
  });

  it('answers 404 not_found for a path parameter over 100 characters', async () => {
    expectProblem(await api.get(`/v0/persons/${'p'.repeat(101)}`), 404, 'not_found');
    expectProblem(await api.delete(`/v0/pages/${'p'.repeat(500)}`), 404, 'not_found');
  });

  it('refuses NUL in every search query with 400, on both databases', async () => {
    const searches = Object.entries(paths)
      .filter(([, operations]) =>
        operations.get?.parameters?.some((p) => p.in === 'query' && p.name === 'query'),
      )
      .map(([path]) => path);
    expect(searches.length).toBeGreaterThanOrEqual(4);
    for (const path of searches) {
      for (const query of ['%00', 'a%00b', '%ED%A0%80']) {
        const response = await api.get(`${path}?query=${query}`);
        expect([path, query, response.status]).toEqual([path, query, 400]);
        expect(response.body.errors[0].path).toBe('/querystring/query');
      }
    }
  });

  it('refuses NUL in a public form submission, storing nothing and queueing no job', async () => {
    const page = await createPage();
    expect((await api.post(`/v0/pages/${page.pageId}/publish`)).status).toBe(200);
    const audience = (await api.post(`/v0/pages/${page.pageId}/audiences`, {})).body;
    const link = (
      await api.post('/v0/page_links', {
        path: `/nul-${Date.now()}`,
        target: { targetType: 'audience', audienceId: audience.audienceId },
      })
    ).body;
    const token = issueToken(new Signer(TEST_SECRET), {
      tenantId: api.tenantId,
      pageId: page.pageId,
      audienceId: audience.audienceId,
      pageLinkId: link.pageLinkId,
      arm: 'personalized',
      expiresAt: Date.now() + TOKEN_VALID_MS,
    });
    const jobsBefore = await server.database.forTenant(api.tenantId).rowCount('jobs');
    const response = await server
      .anonymous()
      .post('/v0/public/forms', { token, email: 'a@example.com', fields: { company: 'Ac\u0000me' } });
    expectProblem(response, 400, 'validation_failed');
    const submissions = await server.database
      .forTenant<FormsTables>(api.tenantId)
      .selectFrom('form_submissions')
      .select('id')
      .execute();
    expect(submissions).toEqual([]);
    expect(await server.database.forTenant(api.tenantId).rowCount('jobs')).toBe(jobsBefore);
  });
});

describe('bodies that are not UTF-8', () => {
  it.each([
    ['a lone continuation byte', Buffer.from([0x80])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
    ['a truncated sequence', Buffer.from([0xe2, 0x82])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
  ])('refuses %s with 400 invalid_json, storing nothing', async (_, bytes) => {
    const before = await personCount();
    const raw = Buffer.concat([Buffer.from('{"email":"utf@example.com","name":"'), bytes, Buffer.from('"}')]);
    const response = await api.request('POST', '/v0/persons', {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'invalid_json');
    expect(await personCount()).toBe(before);
  });

  it('still accepts any valid UTF-8, astral characters included', async () => {
    const response = await api.post('/v0/persons', { email: 'astral@example.com', name: 'Zoë 🚀 日本' });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe('Zoë 🚀 日本');
  });
});

describe('deeply nested bodies', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const sendRaw = (method: string, url: string, raw: string) =>
    api.request(method, url, { raw, headers: { 'content-type': 'application/json' } });

  // Found by the fuzz suite: Ajv compares uniqueItems with a recursive deep-equal, which two
  // items 50,000 arrays deep overflowed into a 500.
  it('refuses a body nested deeper than MAX_BODY_DEPTH with 400 at /body, storing nothing', async () => {
    const subscription = (await api.post('/v0/webhook_subscriptions', { url: 'http://127.0.0.1:9/hooks' }))
      .body;
    const url = `/v0/webhook_subscriptions/${subscription.subscriptionId}`;
    for (const depth of [MAX_BODY_DEPTH + 1, 50_000]) {
      const response = await sendRaw('PATCH', url, `{"events":[${nested(depth)},${nested(depth)}]}`);
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors).toEqual([{ path: '/body', message: expect.any(String) }]);
    }
    expect((await api.get(url)).body).toMatchObject({ events: null, updatedAt: subscription.updatedAt });
  });

  it('validates a body as deep as MAX_BODY_DEPTH as usual', async () => {
    const response = await sendRaw(
      'POST',
      '/v0/topics',
      `{"title":"T","brandIds":${nested(MAX_BODY_DEPTH - 1)}}`,
    );
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors[0].path).toBe('/body/brandIds/0');
  });

  it('refuses deep JSON sent as a beacon (text/plain) the same way', async () => {
    const response = await server.anonymous().request('POST', '/v0/public/events', {
      raw: `{"events":${nested(10_000)}}`,
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(response, 400, 'validation_failed');
  });
});

describe('audiences', () => {
  it('answers 400 for an empty personId, like an unknown one', async () => {
    const page = await createPage();
    expect((await api.post(`/v0/pages/${page.pageId}/publish`)).status).toBe(200);
    for (const personId of ['', 'person_unknown']) {
      const response = await api.post(`/v0/pages/${page.pageId}/audiences`, { personId });
      expectProblem(response, 400, 'validation_failed');
      expect(response.body.errors[0].path).toBe('/body/personId');
    }
    expect((await api.get(`/v0/pages/${page.pageId}/audiences`)).body.items).toEqual([]);
  });
});
