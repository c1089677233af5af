import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { TenantDomain, TenantDomainList } from '../../src/resources/tenant-domains/schema.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;
let counter = 0;
const uniqueHostname = () => `go${++counter}.${Date.now().toString(36)}.example`;

beforeAll(async () => {
  server = await startServer({ pagesUrl: 'http://{tenant}.pages.example:{port}' });
  api = await server.newTenant();
});
afterAll(() => server.close());

async function createDomain(client: Client = api, hostname = uniqueHostname()) {
  const response = await client.post('/v0/tenant_domains', { hostname });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(TenantDomain, response.body);
  return response.body;
}

async function newAudience(client: Client): Promise<string> {
  const page = await client.post('/v0/pages', {
    name: 'Domain page',
    pageContext: 'Context.',
    brandId: 'b',
    actions: [],
    actionCardWidgets: [],
    scripts: [],
  });
  return (await client.post(`/v0/pages/${page.body.pageId}/audiences`, {})).body.audienceId;
}

describe('tenant domains', () => {
  it('creates one: 201 with Location, a domain_ id and timestamps', async () => {
    const hostname = uniqueHostname();
    const response = await api.post('/v0/tenant_domains', { hostname });
    expect(response.status).toBe(201);
    expectSchema(TenantDomain, response.body);
    expect(response.body.tenantDomainId).toMatch(/^domain_[a-z0-9]{26}$/);
    expect(response.headers.get('location')).toBe(`/v0/tenant_domains/${response.body.tenantDomainId}`);
    expect(response.body).toMatchObject({ hostname });
    expect(response.body.createdAt).toMatch(/^\+\d+$/);
    expect(response.body.updatedAt).toBe(response.body.createdAt);
    const read = await api.get(`/v0/tenant_domains/${response.body.tenantDomainId}`);
    expect(read.body).toEqual(response.body);
  });

  it.each([
    ['uppercase letters', 'Go.Acme.example'],
    ['one label', 'localhost'],
    ['an IPv4 address', '203.0.113.7'],
    ['a last label that starts with a digit', 'go.acme.1example'],
    ['an IPv6 address', '[2001:db8::1]'],
    ['a port', 'go.acme.example:8443'],
    ['a trailing dot', 'go.acme.example.'],
    ['a scheme', 'https://go.acme.example'],
    ['a path', 'go.acme.example/spring'],
    ['a leading hyphen in a label', '-go.acme.example'],
    ['a trailing hyphen in a label', 'go-.acme.example'],
    ['an empty label', 'go..acme.example'],
    ['a label over 63 characters', `${'a'.repeat(64)}.example`],
    ['a name over 253 characters', `${Array.from({ length: 5 }, () => 'a'.repeat(50)).join('.')}.example`],
    ['an underscore', 'go_now.acme.example'],
    ['a space', 'go acme.example'],
    ['unicode (send punycode)', 'bücher.example'],
  ])('refuses %s with 400 at /body/hostname and creates nothing', async (_label, hostname) => {
    const before = (await api.get('/v0/tenant_domains')).body.totalCount;
    const response = await api.post('/v0/tenant_domains', { hostname });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual(['/body/hostname']);
    expect((await api.get('/v0/tenant_domains')).body.totalCount).toBe(before);
  });

  it('accepts punycode and the longest legal names', async () => {
    await createDomain(api, `xn--bcher-kva.${Date.now().toString(36)}.example`);
    const label = 'a'.repeat(63);
    await createDomain(api, `${label}.${label}.${label}.${'b'.repeat(57)}.abc`);
  });

  it('refuses a missing hostname and unknown fields with 400', async () => {
    expect((await api.post('/v0/tenant_domains', {})).status).toBe(400);
    const unknown = await api.post('/v0/tenant_domains', { hostname: uniqueHostname(), verified: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toBe('/body/verified');
  });

  it("refuses the pages origin's own hosts, and the names under them", async () => {
    for (const hostname of ['someone.pages.example', 'pages.example', 'deep.someone.pages.example']) {
      const response = await api.post('/v0/tenant_domains', { hostname });
      expect(response.status, hostname).toBe(400);
      expect(response.body.errors[0].path).toBe('/body/hostname');
    }
    expect((await api.post('/v0/tenant_domains', { hostname: 'pages.example.org' })).status).toBe(201);
  });

  it("refuses the shared pages origin's host and the names under it", async () => {
    const shared = await startServer({ pagesUrl: 'http://pages.tailor.example:{port}' });
    try {
      const tenant = await shared.newTenant();
      for (const hostname of ['pages.tailor.example', 'acme.pages.tailor.example']) {
        expect((await tenant.post('/v0/tenant_domains', { hostname })).status, hostname).toBe(400);
      }
      expect((await tenant.post('/v0/tenant_domains', { hostname: 'go.tailor.example' })).status).toBe(201);
    } finally {
      await shared.close();
    }
  });

  it('one tenant per hostname across the service: 409 alike for a duplicate and for another tenant’s', async () => {
    const domain = await createDomain();
    const again = await api.post('/v0/tenant_domains', { hostname: domain.hostname });
    const other = await server.newTenant();
    const theirs = await other.post('/v0/tenant_domains', { hostname: domain.hostname });
    for (const response of [again, theirs]) {
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('conflict');
    }
    expect(theirs.body.detail).toBe(again.body.detail);
    expect(theirs.body.detail).not.toContain(api.tenantId);
    expect((await other.get('/v0/tenant_domains')).body.totalCount).toBe(0);
  });

  it('lists the tenant’s domains newest first, paged with cursors', async () => {
    const tenant = await server.newTenant();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createDomain(tenant));
    const first = await tenant.get('/v0/tenant_domains?limit=2');
    expectSchema(TenantDomainList, first.body);
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 3 });
    expect(first.body.items.map((d: { tenantDomainId: string }) => d.tenantDomainId)).toEqual([
      made[2].tenantDomainId,
      made[1].tenantDomainId,
    ]);
    const second = await tenant.get(`/v0/tenant_domains?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.body.items[0].tenantDomainId).toBe(made[0].tenantDomainId);
    expect((await tenant.get('/v0/tenant_domains?limit=0')).status).toBe(400);
  });

  it('deletes one (answering it), after which it is gone and its hostname free', async () => {
    const domain = await createDomain();
    const deleted = await api.delete(`/v0/tenant_domains/${domain.tenantDomainId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual(domain);
    expect((await api.get(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(404);
    expect((await api.delete(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(404);
    const other = await server.newTenant();
    expect((await other.post('/v0/tenant_domains', { hostname: domain.hostname })).status).toBe(201);
  });

  it('refuses to delete a domain a live link is served on (409), until the link is deleted', async () => {
    const domain = await createDomain();
    const audienceId = await newAudience(api);
    const link = await api.post('/v0/page_links', {
      path: '/on-domain',
      target: { targetType: 'audience', audienceId },
      tenantDomainId: domain.tenantDomainId,
    });
    expect(link.status).toBe(201);
    const refused = await api.delete(`/v0/tenant_domains/${domain.tenantDomainId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_state');
    expect(refused.body.detail).toContain('1 live page link');
    expect((await api.get(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(200);
    await api.delete(`/v0/page_links/${link.body.pageLinkId}`);
    expect((await api.delete(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(200);
    // The deleted link keeps naming the domain it was on, and has no address any more.
    expect((await api.get(`/v0/page_links/${link.body.pageLinkId}`)).body).toMatchObject({
      tenantDomainId: domain.tenantDomainId,
      url: null,
    });
  });

  it('another tenant’s domain is 404 to read or delete, and absent from the list', async () => {
    const domain = await createDomain();
    const other = await server.newTenant();
    for (const response of [
      await other.get(`/v0/tenant_domains/${domain.tenantDomainId}`),
      await other.delete(`/v0/tenant_domains/${domain.tenantDomainId}`),
      await other.get('/v0/tenant_domains/domain_00000000000000000000000000'),
      await other.get('/v0/tenant_domains/garbage'),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect((await other.get('/v0/tenant_domains')).body.items).toEqual([]);
    expect((await api.get(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(200);
  });

  it('a read-only key may list and read, not create or delete', async () => {
    const domain = await createDomain();
    const { apiKey } = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const reader = api.as(apiKey);
    expect((await reader.get('/v0/tenant_domains')).status).toBe(200);
    expect((await reader.get(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(200);
    expect((await reader.post('/v0/tenant_domains', { hostname: uniqueHostname() })).status).toBe(403);
    expect((await reader.delete(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(403);
  });

  it('needs a key', async () => {
    const anonymous = server.anonymous();
    expect((await anonymous.get('/v0/tenant_domains')).status).toBe(401);
    expect((await anonymous.post('/v0/tenant_domains', { hostname: uniqueHostname() })).status).toBe(401);
  });
});
