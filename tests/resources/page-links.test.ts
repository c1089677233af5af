import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageLink, PageLinkList } from '../../src/resources/page-links/schema.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;
let audienceId: string;

async function newAudience(client: Client) {
  const page = await client.post('/v0/pages', {
    name: 'Linked page',
    pageContext: 'Context.',
    brandId: 'b',
    actions: [],
    actionCardWidgets: [],
    scripts: [],
  });
  return (await client.post(`/v0/pages/${page.body.pageId}/audiences`, {})).body;
}

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  audienceId = (await newAudience(api)).audienceId;
});
afterAll(() => server.close());

const target = (id = audienceId) => ({ targetType: 'audience', audienceId: id });
let counter = 0;
let hostnames = 0;

/** A tenant domain of `client`'s, with a hostname no other test takes. */
async function newDomain(client: Client): Promise<{ tenantDomainId: string; hostname: string }> {
  const hostname = `go${++hostnames}-${client.tenantId.slice(-8)}.links.example`;
  const response = await client.post('/v0/tenant_domains', { hostname });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}
const uniquePath = () => `/offers/link-${++counter}`;

async function createLink(body: Record<string, unknown> = {}) {
  const response = await api.post('/v0/page_links', { path: uniquePath(), target: target(), ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(PageLink, response.body);
  return response.body;
}

describe('page links', () => {
  it('creates a link with a lowercased path, 201 with Location', async () => {
    const response = await api.post('/v0/page_links', { path: '/Spring/Jane-Doe_2.v~1', target: target() });
    expect(response.status).toBe(201);
    expectSchema(PageLink, response.body);
    expect(response.headers.get('location')).toBe(`/v0/page_links/${response.body.pageLinkId}`);
    expect(response.body).toMatchObject({
      path: '/spring/jane-doe_2.v~1',
      tenantDomainId: null,
      target: { targetType: 'audience', audienceId },
      deletedAt: null,
    });
    expect(response.body.pageLinkId).toMatch(/^pagelink_[a-z0-9]{26}$/);
  });

  it('accepts the root path and a tenantDomainId, and tells where each is served', async () => {
    const tenant = await server.newTenant();
    const { slug } = (await tenant.get('/v0/tenant')).body;
    const audience = await newAudience(tenant);
    const domain = await newDomain(tenant);
    const onDomain = await tenant.post('/v0/page_links', {
      path: '/',
      target: target(audience.audienceId),
      tenantDomainId: domain.tenantDomainId,
    });
    expect(onDomain.status).toBe(201);
    expect(onDomain.body).toMatchObject({
      path: '/',
      tenantDomainId: domain.tenantDomainId,
      url: `https://${domain.hostname}/`,
    });
    const shared = await tenant.post('/v0/page_links', { path: '/', target: target(audience.audienceId) });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect(shared.body.url).toBe(`${server.pagesUrl}/p/${slug}/`);
    const deep = await tenant.post('/v0/page_links', { path: '/a/b', target: target(audience.audienceId) });
    expect(deep.body.url).toBe(`${server.pagesUrl}/p/${slug}/a/b`);
    const deleted = await tenant.delete(`/v0/page_links/${deep.body.pageLinkId}`);
    expect(deleted.body.url).toBeNull();
  });

  it('refuses a tenantDomainId that is not a domain of the tenant (400), and /v0 paths on a domain', async () => {
    const other = await server.newTenant();
    const theirs = await newDomain(other);
    for (const tenantDomainId of [theirs.tenantDomainId, 'domain_00000000000000000000000000', 'dom_1']) {
      const response = await api.post('/v0/page_links', {
        path: uniquePath(),
        target: target(),
        tenantDomainId,
      });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/tenantDomainId']);
    }
    const mine = await newDomain(api);
    const reserved = await api.post('/v0/page_links', {
      path: '/v0/public/events',
      target: target(),
      tenantDomainId: mine.tenantDomainId,
    });
    expect(reserved.status).toBe(400);
    expect(reserved.body.errors[0].path).toBe('/body/path');
    // On the shared address /v0 is a path like any other: it follows /p/{slug}.
    expect((await api.post('/v0/page_links', { path: '/v0', target: target() })).status).toBe(201);
  });

  it('a path is unique per domain: the same path on the shared address and on each domain', async () => {
    const first = await newDomain(api);
    const second = await newDomain(api);
    const path = uniquePath();
    await createLink({ path });
    await createLink({ path, tenantDomainId: first.tenantDomainId });
    await createLink({ path, tenantDomainId: second.tenantDomainId });
    const taken = await api.post('/v0/page_links', {
      path,
      target: target(),
      tenantDomainId: first.tenantDomainId,
    });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain(first.tenantDomainId);
  });

  it.each([
    ['a path without a leading slash', { path: 'offers' }, '/body/path'],
    ['an empty path', { path: '' }, '/body/path'],
    ['an empty segment', { path: '/a//b' }, '/body/path'],
    ['a trailing slash', { path: '/a/' }, '/body/path'],
    ['a dot-dot segment', { path: '/a/../b' }, '/body/path'],
    ['a space', { path: '/a b' }, '/body/path'],
    ['a query string', { path: '/a?b=1' }, '/body/path'],
    ['a path over 512 characters', { path: `/${'a'.repeat(512)}` }, '/body/path'],
    ['a missing target', { target: undefined }, '/body/target'],
    ['another target type', { target: { targetType: 'page', audienceId: 'x' } }, '/body/target/targetType'],
    [
      'an unknown audience',
      { target: { targetType: 'audience', audienceId: 'audience_00000000000000000000000000' } },
      '/body/target/audienceId',
    ],
    ['an unknown field', { label: 'x' }, '/body/label'],
  ])('rejects %s with 400 and creates nothing', async (_label, overrides, path) => {
    const before = (await api.get('/v0/page_links')).body.totalCount;
    const response = await api.post('/v0/page_links', { path: uniquePath(), target: target(), ...overrides });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get('/v0/page_links')).body.totalCount).toBe(before);
  });

  it('a path is unique per tenant among live links (409), case-insensitively, and freed by deletion', async () => {
    const link = await createLink({ path: '/unique-path' });
    const taken = await api.post('/v0/page_links', { path: '/UNIQUE-path', target: target() });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain(link.pageLinkId);
    const other = await server.newTenant();
    const theirs = await newAudience(other);
    expect(
      (await other.post('/v0/page_links', { path: '/unique-path', target: target(theirs.audienceId) }))
        .status,
    ).toBe(201);
    await api.delete(`/v0/page_links/${link.pageLinkId}`);
    expect((await api.post('/v0/page_links', { path: '/unique-path', target: target() })).status).toBe(201);
  });

  it('refuses an archived audience with 409, and another tenant’s audience with 400', async () => {
    const audience = await newAudience(api);
    await api.delete(`/v0/pages/${audience.pageId}/audiences/${audience.audienceId}`);
    const archived = await api.post('/v0/page_links', {
      path: uniquePath(),
      target: target(audience.audienceId),
    });
    expect(archived.status).toBe(409);
    expect(archived.body.code).toBe('invalid_state');
    const other = await server.newTenant();
    const theirs = await newAudience(other);
    expect(
      (await api.post('/v0/page_links', { path: uniquePath(), target: target(theirs.audienceId) })).status,
    ).toBe(400);
  });

  it('PATCH changes path, target and domain; omitted fields stay', async () => {
    const link = await createLink();
    const second = await newAudience(api);
    const domain = await newDomain(api);
    const response = await api.patch(`/v0/page_links/${link.pageLinkId}`, {
      path: '/Moved',
      target: target(second.audienceId),
      tenantDomainId: domain.tenantDomainId,
    });
    expect(response.status).toBe(200);
    expectSchema(PageLink, response.body);
    expect(response.body).toMatchObject({
      path: '/moved',
      target: { audienceId: second.audienceId },
      tenantDomainId: domain.tenantDomainId,
      url: `https://${domain.hostname}/moved`,
    });
    const cleared = await api.patch(`/v0/page_links/${link.pageLinkId}`, { tenantDomainId: null });
    expect(cleared.body).toMatchObject({ path: '/moved', tenantDomainId: null });
    expect((await api.patch(`/v0/page_links/${link.pageLinkId}`, { path: 'bad' })).status).toBe(400);
    expect((await api.patch(`/v0/page_links/${link.pageLinkId}`, { path: null })).status).toBe(400);
    const holder = await createLink();
    expect((await api.patch(`/v0/page_links/${link.pageLinkId}`, { path: holder.path })).status).toBe(409);
    expect((await api.get(`/v0/page_links/${link.pageLinkId}`)).body.path).toBe('/moved');
  });

  it('DELETE is soft: still readable with deletedAt, gone from the list, repeat unchanged, no more changes', async () => {
    const link = await createLink();
    const deleted = await api.delete(`/v0/page_links/${link.pageLinkId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deletedAt).toMatch(/^\+\d+$/);
    expect((await api.delete(`/v0/page_links/${link.pageLinkId}`)).body).toEqual(deleted.body);
    expect((await api.get(`/v0/page_links/${link.pageLinkId}`)).body).toEqual(deleted.body);
    const listed = (await api.get('/v0/page_links?limit=100')).body.items.map(
      (l: { pageLinkId: string }) => l.pageLinkId,
    );
    expect(listed).not.toContain(link.pageLinkId);
    expect((await api.patch(`/v0/page_links/${link.pageLinkId}`, { path: '/x' })).status).toBe(409);
  });

  it('lists live links newest first, by audience too', async () => {
    const tenant = await server.newTenant();
    const a = await newAudience(tenant);
    const b = await newAudience(tenant);
    for (const [path, audience] of [
      ['/a1', a],
      ['/b1', b],
      ['/a2', a],
    ] as const) {
      await tenant.post('/v0/page_links', { path, target: target(audience.audienceId) });
    }
    const all = await tenant.get('/v0/page_links');
    expectSchema(PageLinkList, all.body);
    expect(all.body.items.map((l: { path: string }) => l.path)).toEqual(['/a2', '/b1', '/a1']);
    const ofA = await tenant.get(`/v0/page_links?audienceId=${a.audienceId}`);
    expect(ofA.body.items.map((l: { path: string }) => l.path)).toEqual(['/a2', '/a1']);
  });

  it('is 404 for another tenant on every endpoint', async () => {
    const link = await createLink();
    const other = await server.newTenant();
    expect((await other.get(`/v0/page_links/${link.pageLinkId}`)).status).toBe(404);
    expect((await other.patch(`/v0/page_links/${link.pageLinkId}`, { path: '/x' })).status).toBe(404);
    expect((await other.delete(`/v0/page_links/${link.pageLinkId}`)).status).toBe(404);
    expect((await other.get('/v0/page_links')).body.items).toEqual([]);
    expect((await api.get(`/v0/page_links/${link.pageLinkId}`)).body.deletedAt).toBeNull();
  });
});
