import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAtHost, type HostAnswer, type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/** Every tenant's pages on one origin (the default): http://127.0.0.1:{pages port}. */
describe('the pages origin, shared by every tenant', () => {
  let server: TestServer;
  let api: Client;
  let published: LinkedPage;

  beforeAll(async () => {
    server = await startServer();
    api = await server.newTenant();
    published = await publishLinkedPage(server, api, { personalize: false, path: '/spring/jane' });
  });
  afterAll(() => server.close());

  it('serves the page; on the API origin its address answers 308 to the pages origin, query kept', async () => {
    const onPages = await fetch(`${server.pagesUrl}${published.url}`);
    expect(onPages.status).toBe(200);
    expect(await onPages.text()).toContain('<!doctype html>');
    const onApi = await fetch(`${server.url}${published.url}?utm_source=mail`, { redirect: 'manual' });
    expect(onApi.status).toBe(308);
    expect(onApi.headers.get('location')).toBe(`${server.pagesUrl}${published.url}?utm_source=mail`);
    expect(onApi.headers.get('content-type') ?? '').not.toMatch(/html/);
    const head = await fetch(`${server.url}${published.url}`, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(308);
  });

  it('the API origin answers 404 problems, not redirects, for what names no tenant', async () => {
    for (const path of ['/p', '/p/', '/p/Not_A_Slug/x', '/p/evil.example%2F/x']) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it("the API origin's root leads to the console; the pages origin's does not", async () => {
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    await root.arrayBuffer();
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console');
  });

  it('serves nothing of the API, the console or the operations endpoints', async () => {
    const key = { 'x-api-key': api.apiKey as string };
    for (const path of [
      '/',
      '/console',
      '/console/pages',
      '/docs',
      '/v0/openapi.json',
      '/v0/tenant',
      '/v0/persons',
      '/healthz',
      '/readyz',
      '/metrics',
    ]) {
      const response = await fetch(`${server.pagesUrl}${path}`, { headers: key });
      expect(response.status, path).toBe(404);
      const body = await response.text();
      expect(body, path).not.toContain(api.tenantId);
      expect(body, path).not.toMatch(/<script|openapi/i);
    }
    const write = await fetch(`${server.pagesUrl}/v0/persons`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nobody' }),
    });
    await write.arrayBuffer();
    expect(write.status).toBeGreaterThanOrEqual(400);
    expect((await api.get('/v0/persons')).body.totalCount).toBe(0);
  });

  it('serves /v0/public/*: the tracker, events and forms, with the page token', async () => {
    const tracker = await fetch(`${server.pagesUrl}/v0/public/tracker.js`);
    // Every answer is read to its end: one left unread holds its request open, and the server's close with it.
    await tracker.arrayBuffer();
    expect(tracker.status).toBe(200);
    const html = await (await fetch(`${server.pagesUrl}${published.url}`)).text();
    const token = html.match(/data-tailor-token="([^"]+)"/)?.[1];
    const visitor = server.visitor();
    const events = await visitor.post('/v0/public/events', {
      token,
      sessionId: 'pages-origin-session',
      events: [{ type: 'session_start', at: Date.now() }],
    });
    expect(events.status, JSON.stringify(events.body)).toBe(200);
    expect(events.headers.get('access-control-allow-origin')).toBe('*');
    const form = await visitor.post('/v0/public/forms', { token, email: 'jane@globex.example', fields: {} });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
  });

  it("keeps the visitor id on the tenant's own path, and a page's scripts out of the origin", async () => {
    const held = await publishLinkedPage(server, api, { path: '/held', audience: { holdoutPercent: 50 } });
    const response = await fetch(`${server.pagesUrl}${held.url}`);
    await response.arrayBuffer();
    expect(response.headers.get('set-cookie')).toContain(`Path=/p/${held.slug};`);
    expect(response.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/);
  });
});

/** `{tenant}` in TAILOR_PAGES_URL: each tenant's pages on an origin of its own. */
describe('an origin per tenant', () => {
  let server: TestServer;
  let api: Client;
  let published: LinkedPage;
  const hostOf = (slug: string) => `${slug}.pages.localhost:${new URL(server.pagesUrl).port}`;

  beforeAll(async () => {
    server = await startServer({ pagesUrl: 'http://{tenant}.pages.localhost:{port}' });
    api = await server.newTenant();
    published = await publishLinkedPage(server, api, { personalize: false, path: '/spring' });
  });
  afterAll(() => server.close());

  it("serves a page at its tenant's own host, without the shared origin's sandbox", async () => {
    const response = await getAtHost(server.pagesUrl, hostOf(published.slug), published.url);
    expect(response.status).toBe(200);
    expect(response.headers['content-security-policy']).toBeUndefined();
  });

  it("sends a page asked for on another tenant's host, or on a bare one, to its own host", async () => {
    const other = await server.newTenant();
    const { slug: otherSlug } = (await other.get('/v0/tenant')).body;
    for (const host of [hostOf(otherSlug), `127.0.0.1:${new URL(server.pagesUrl).port}`]) {
      const response = await getAtHost(server.pagesUrl, host, `${published.url}?a=1`);
      expect(response.status, host).toBe(308);
      expect(response.headers.location).toBe(`http://${hostOf(published.slug)}${published.url}?a=1`);
    }
  });

  it("refuses a visitor id tossed from another tenant's host, or made up, and mints its own (issue 36)", async () => {
    // Over plain http a sibling host's script can set `tailor_vid; Domain=pages.localhost`, and no
    // cookie name keeps it out: the value must be bound to the origin it was set for.
    const [one, other] = [await server.newTenant(), await server.newTenant()];
    const ours = await publishLinkedPage(server, one, { path: '/held', audience: { holdoutPercent: 50 } });
    const theirs = await publishLinkedPage(server, other, {
      path: '/held',
      audience: { holdoutPercent: 50 },
    });
    const visitorCookie = (answer: HostAnswer) =>
      String(answer.headers['set-cookie']).match(/^tailor_vid=([^;]+);/)?.[1];
    const minted = visitorCookie(await getAtHost(server.pagesUrl, hostOf(theirs.slug), theirs.url));
    expect(minted).toBeDefined();
    for (const tossed of [
      minted,
      'AAAAAAAAAAAAAAAAAAAAAA',
      `AAAAAAAAAAAAAAAAAAAAAA.${minted?.split('.')[1]}`,
    ]) {
      const answer = await getAtHost(server.pagesUrl, hostOf(ours.slug), ours.url, {
        cookie: `tailor_vid=${tossed}`,
      });
      expect(answer.status).toBe(200);
      const own = visitorCookie(answer);
      expect(own, tossed).toBeDefined();
      expect(own?.split('.')[0], tossed).not.toBe(tossed?.split('.')[0]);
      // Its own id, sent back, is kept: the visitor stays in their arm; also behind the tossed one,
      // which the browser keeps sending first (it is older, and its Domain cookie is not replaced).
      for (const cookie of [`tailor_vid=${own}`, `tailor_vid=${tossed}; tailor_vid=${own}`]) {
        const again = await getAtHost(server.pagesUrl, hostOf(ours.slug), ours.url, { cookie });
        expect(visitorCookie(again), cookie).toBe(own);
      }
    }
  });

  it('names each link and the tenant by their own origin', async () => {
    const tenant = (await api.get('/v0/tenant')).body;
    expect(tenant.pagesUrl).toBe(`http://${hostOf(tenant.slug)}/p/${tenant.slug}`);
    const links = (await api.get('/v0/page_links')).body.items;
    expect(links[0].url).toBe(`http://${hostOf(tenant.slug)}/p/${tenant.slug}/spring`);
    const onApi = await fetch(`${server.url}${published.url}`, { redirect: 'manual' });
    expect(onApi.headers.get('location')).toBe(`http://${hostOf(published.slug)}${published.url}`);
  });
});

/** A tenant domain: the tenant's own host, routed by Host on the pages origin. */
describe('pages on a tenant domain', () => {
  let server: TestServer;
  let api: Client;
  let other: Client;
  let domain: { tenantDomainId: string; hostname: string };
  let published: LinkedPage;

  beforeAll(async () => {
    server = await startServer();
    api = await server.newTenant();
    other = await server.newTenant();
    domain = (await api.post('/v0/tenant_domains', { hostname: 'go.northwind.example' })).body;
    published = await publishLinkedPage(server, api, { personalize: false, path: '/shared-only' });
    const onDomain = await api.post('/v0/page_links', {
      path: '/spring',
      target: { targetType: 'audience', audienceId: published.audienceId },
      tenantDomainId: domain.tenantDomainId,
    });
    expect(onDomain.status, JSON.stringify(onDomain.body)).toBe(201);
    expect(onDomain.body.url).toBe('https://go.northwind.example/spring');
    await publishLinkedPage(server, other, { personalize: false, path: '/spring' });
  });
  afterAll(() => server.close());

  it('serves the link at its path on the held host, trailing slash and case forgiven', async () => {
    for (const path of ['/spring', '/spring/', '/SPRING?utm_source=mail']) {
      const response = await getAtHost(server.pagesUrl, 'go.northwind.example', path);
      expect(response.status, path).toBe(200);
      expect(response.body).toContain('data-tailor-token=');
      expect(response.headers['content-security-policy']).toBeUndefined();
    }
    expect((await getAtHost(server.pagesUrl, 'GO.Northwind.Example:443', '/spring')).status).toBe(200);
  });

  it("serves nothing else there: not the tenant's shared links, not another tenant's", async () => {
    const { slug: otherSlug } = (await other.get('/v0/tenant')).body;
    for (const path of [published.url, '/shared-only', `/p/${otherSlug}/spring`, '/nothing', '/']) {
      const response = await getAtHost(server.pagesUrl, 'go.northwind.example', path);
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain('data-tailor-token=');
    }
    // …and the domain's link is not on the shared address either.
    expect((await fetch(`${server.pagesUrl}/p/${published.slug}/spring`)).status).toBe(404);
  });

  it('serves /v0/public/* on the domain, for the page it carries', async () => {
    const tracker = await getAtHost(server.pagesUrl, 'go.northwind.example', '/v0/public/tracker.js');
    expect(tracker.status).toBe(200);
    expect(tracker.headers['content-type']).toMatch(/javascript/);
  });

  it('keeps the visitor id for the whole host', async () => {
    const held = await publishLinkedPage(server, api, {
      path: '/held-shared',
      audience: { holdoutPercent: 50 },
    });
    await api.post('/v0/page_links', {
      path: '/held',
      target: { targetType: 'audience', audienceId: held.audienceId },
      tenantDomainId: domain.tenantDomainId,
    });
    const response = await getAtHost(server.pagesUrl, 'go.northwind.example', '/held');
    // https (the domain's address): a __Host- cookie, which no sibling host can set with a Domain.
    expect(String(response.headers['set-cookie'])).toMatch(
      /^__Host-tailor_vid=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    const visitorId = String(response.headers['set-cookie']).match(/=([^;]+);/)?.[1];
    // A tossed plain tailor_vid is not read; the __Host- one is, and keeps the visitor's arm.
    const again = await getAtHost(server.pagesUrl, 'go.northwind.example', '/held', {
      cookie: `tailor_vid=AAAAAAAAAAAAAAAAAAAAAA; __Host-tailor_vid=${visitorId}`,
    });
    expect(String(again.headers['set-cookie'])).toContain(`__Host-tailor_vid=${visitorId};`);
  });

  it('tells a TLS proxy whether a hostname is held, with no key and nothing more', async () => {
    for (const base of [server.pagesUrl, server.url]) {
      const held = await fetch(`${base}/v0/public/domains/go.northwind.example`);
      expect(held.status).toBe(200);
      expect(await held.json()).toEqual({ hostname: 'go.northwind.example' });
      const asked = await fetch(`${base}/v0/public/domains?domain=go.northwind.example`);
      expect(asked.status).toBe(200);
      const free = await fetch(`${base}/v0/public/domains?domain=free.northwind.example`);
      expect(free.status).toBe(404);
      expect(free.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await fetch(`${base}/v0/public/domains/free.northwind.example`)).status).toBe(404);
      expect((await fetch(`${base}/v0/public/domains`)).status).toBe(400);
    }
  });

  it('reads a hostname the same way when it routes a page and when it answers the domain check (issue 36)', async () => {
    for (const spelling of [
      'go.northwind.example.',
      'GO.Northwind.Example',
      'go.northwind.example:1',
      'Go.Northwind.Example.:8443',
    ]) {
      expect((await getAtHost(server.pagesUrl, spelling, '/spring')).status, spelling).toBe(200);
      for (const check of [
        `/v0/public/domains/${spelling}`,
        `/v0/public/domains?domain=${encodeURIComponent(spelling)}`,
      ]) {
        const answer = await fetch(`${server.pagesUrl}${check}`);
        expect(answer.status, check).toBe(200);
        expect(await answer.json()).toEqual({ hostname: 'go.northwind.example' });
      }
    }
    for (const spelling of ['free.northwind.example.', 'FREE.northwind.example:1']) {
      expect((await getAtHost(server.pagesUrl, spelling, '/spring')).status, spelling).toBe(404);
      const answer = await fetch(
        `${server.pagesUrl}/v0/public/domains?domain=${encodeURIComponent(spelling)}`,
      );
      await answer.arrayBuffer();
      expect(answer.status, spelling).toBe(404);
    }
  });

  it('stops serving once the domain is given up, and refuses to give it up while a link is on it', async () => {
    const busy = await api.delete(`/v0/tenant_domains/${domain.tenantDomainId}`);
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('invalid_state');
    for (const link of (await api.get('/v0/page_links')).body.items) {
      if (link.tenantDomainId === domain.tenantDomainId)
        await api.delete(`/v0/page_links/${link.pageLinkId}`);
    }
    expect((await api.delete(`/v0/tenant_domains/${domain.tenantDomainId}`)).status).toBe(200);
    expect((await getAtHost(server.pagesUrl, 'go.northwind.example', '/spring')).status).toBe(404);
    expect((await fetch(`${server.pagesUrl}/v0/public/domains/go.northwind.example`)).status).toBe(404);
  });
});
