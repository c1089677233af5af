import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_VALID_MS } from '../../src/public/token.ts';
import { assetPurge } from '../../src/workflows/asset-purge/task.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { png, uploadImage } from '../helpers/images.ts';
import { getAtHost, type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { QueryCounter } from '../helpers/query-counter.ts';
import { type RawAnswer, rawGet } from '../helpers/raw-get.ts';
import { Client, startTwoNodes, type TestServer, type TwoNodes } from '../helpers/server.ts';

/**
 * The served-page read model (src/workflows/page-view/served.ts): a view is one read of the page
 * kept rendered, and every change to what it shows is seen on every node's next request.
 */

const DAY = 24 * 60 * 60 * 1000;
let nodes: TwoNodes;
let server: TestServer;
/** A second node on the same database, through a connection of its own. */
let other: TestServer;
let api: Client;
const queries = new QueryCounter();
let paths = 0;

beforeAll(async () => {
  nodes = await startTwoNodes((database) => database.withPlugin(queries));
  ({ server, other } = nodes);
  api = await server.newTenant();
});
afterAll(() => nodes.close());

function ok<T extends { status: number; body: unknown }>(response: T, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

function publishPage(
  page: Record<string, unknown> = {},
  { personalize = false, audience = {} }: { personalize?: boolean; audience?: Record<string, unknown> } = {},
): Promise<LinkedPage> {
  return publishLinkedPage(server, api, { page, audience, personalize, path: `/served/page-${++paths}` });
}

/** GET as it comes off the wire from `node`'s pages origin. */
function rawGetFrom(node: TestServer, url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return rawGet(`${node.pagesUrl}${url}`, headers);
}

/** The page's status and HTML as `node` serves it now. */
async function view(node: TestServer, url: string): Promise<{ status: number; html: string }> {
  const answer = await rawGetFrom(node, url);
  return { status: answer.status, html: answer.body.toString('utf8') };
}

const headline = (html: string) => html.match(/<h1>([^<]*)<\/h1>/)?.[1];

/** Both nodes' answers now, after each has kept the page. */
async function onBothNodes(url: string): Promise<{ status: number; html: string }[]> {
  return [await view(other, url), await view(server, url)];
}

/** The row of served_pages of the page at `url` (on the shared address, personalized arm). */
async function servedRow(url: string) {
  const [, slug, ...rest] = url.split('/').slice(1);
  const row = await anyTables(server.database)
    .selectFrom('served_pages')
    .selectAll()
    .where('address_key', '=', `s ${slug}/${rest.join('/')}`)
    .executeTakeFirst();
  if (!row) throw new Error(`No page kept for ${url}`);
  return row;
}

describe('a page view', () => {
  it('that misses renders once for simultaneous misses of the page in one process, each served it', async () => {
    const alone = await publishPage();
    queries.count = 0;
    expect((await view(server, alone.url)).status).toBe(200);
    const one = queries.count;
    const published = await publishPage();
    queries.count = 0;
    // In the process, so that the six arrive together.
    const host = new URL(server.pagesUrl).host;
    const views = await Promise.all(
      Array.from({ length: 6 }, () => server.pagesApp.inject({ url: published.url, headers: { host } })),
    );
    for (const answer of views) expect(answer.body).toBe(views[0]?.body);
    expect(views[0]?.statusCode).toBe(200);
    // One rendering, and for each other miss its read and the generation's: never six renderings.
    expect(queries.count).toBeLessThan(2 * one);
  });

  it('is one read once the page is kept: a row of served_pages, its bytes as they were kept', async () => {
    const published = await publishPage();
    expect((await view(server, published.url)).status).toBe(200);
    queries.count = 0;
    const second = await view(server, published.url);
    expect(second.status).toBe(200);
    expect(queries.count).toBe(1);
    const row = await servedRow(published.url);
    expect(row).toMatchObject({ arm: 'personalized', html: second.html, holdout_percent: 0 });
    // What is served is what the row holds.
    await anyTables(server.database)
      .updateTable('served_pages')
      .set({ html: 'kept bytes' })
      .where('address_key', '=', row.address_key)
      .execute();
    expect((await view(other, published.url)).html).toBe('kept bytes');
  });

  it('never serves a row built at an earlier generation of its tenant', async () => {
    const published = await publishPage();
    const first = await view(server, published.url);
    const row = await servedRow(published.url);
    await anyTables(server.database)
      .updateTable('served_pages')
      .set({ html: 'stale bytes' })
      .where('address_key', '=', row.address_key)
      .execute();
    await anyTables(server.database)
      .updateTable('serving_generations')
      .set((eb) => ({ generation: eb('generation', '+', 1) }))
      .where('tenant_id', '=', api.tenantId)
      .execute();
    for (const node of [server, other]) {
      const { html } = await view(node, published.url);
      expect(html).not.toBe('stale bytes');
      expect(headline(html)).toBe(headline(first.html));
    }
  });

  it('is rendered and signed again once less than half of its token’s validity is left', async () => {
    const published = await publishPage();
    await view(server, published.url);
    const row = await servedRow(published.url);
    expect(row.token_expires_at).toBeGreaterThan(Date.now() + TOKEN_VALID_MS - 60_000);
    await anyTables(server.database)
      .updateTable('served_pages')
      .set({ html: 'old token', token_expires_at: Date.now() + TOKEN_VALID_MS / 2 - 60_000 })
      .where('address_key', '=', row.address_key)
      .execute();
    expect((await view(server, published.url)).html).toContain('data-tailor-token=');
    const rebuilt = await servedRow(published.url);
    expect(rebuilt.token_expires_at).toBeGreaterThan(Date.now() + TOKEN_VALID_MS - 60_000);
  });

  it('carries a token that POST /v0/public/events accepts', async () => {
    const published = await publishPage();
    await view(server, published.url);
    const { html } = await view(other, published.url);
    const token = html.match(/data-tailor-token="([^"]+)"/)?.[1] ?? '';
    const answer = await other.anonymous().post('/v0/public/events', {
      token,
      sessionId: `served-${Date.now()}`,
      events: [{ type: 'session_start', at: Date.now() }],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ accepted: 1 });
  });
});

describe('changes show on every node’s next request', () => {
  it('a publish', async () => {
    const published = await publishPage();
    const before = await onBothNodes(published.url);
    await server.worker().drain();
    ok(await api.post(`/v0/pages/${published.pageId}/audiences/${published.audienceId}/publish`));
    const after = await onBothNodes(published.url);
    for (const [index, answer] of after.entries()) {
      expect(answer.status).toBe(200);
      expect(answer.html).not.toBe(before[index]?.html);
    }
    const versions = ok(
      await api.get(`/v0/pages/${published.pageId}/audiences/${published.audienceId}/versions`),
    ).body.items;
    const live = versions.find((version: { state: string }) => version.state === 'published');
    expect(after.map((answer) => headline(answer.html))).toEqual([
      live.content.headline,
      live.content.headline,
    ]);
  });

  it('an archive of the audience', async () => {
    const published = await publishPage();
    await onBothNodes(published.url);
    ok(await api.delete(`/v0/pages/${published.pageId}/audiences/${published.audienceId}`));
    expect((await onBothNodes(published.url)).map((answer) => answer.status)).toEqual([404, 404]);
  });

  it('a brand edit', async () => {
    const brandId = `brand-${++paths}`;
    ok(await api.request('PUT', `/v0/brands/${brandId}`, { body: { name: 'Before Rockets' } }), 201);
    const published = await publishPage({ brandId });
    expect((await onBothNodes(published.url)).every((answer) => answer.html.includes('Before Rockets'))).toBe(
      true,
    );
    ok(await api.request('PUT', `/v0/brands/${brandId}`, { body: { name: 'After Rockets' } }));
    const after = await onBothNodes(published.url);
    expect(after.every((answer) => answer.html.includes('After Rockets'))).toBe(true);
    expect(after.some((answer) => answer.html.includes('Before Rockets'))).toBe(false);
  });

  it('a link moved to another path', async () => {
    const published = await publishPage();
    await onBothNodes(published.url);
    const moved = `/served/moved-${++paths}`;
    ok(await api.patch(`/v0/page_links/${published.pageLinkId}`, { path: moved }));
    expect((await onBothNodes(published.url)).map((answer) => answer.status)).toEqual([404, 404]);
    const movedUrl = published.url.replace(/\/served\/.*$/, moved);
    expect((await onBothNodes(movedUrl)).map((answer) => answer.status)).toEqual([200, 200]);
  });

  it('a page taken off (archived), and published again', async () => {
    const published = await publishPage();
    await onBothNodes(published.url);
    ok(await api.post(`/v0/pages/${published.pageId}/archive`));
    expect((await onBothNodes(published.url)).map((answer) => answer.status)).toEqual([404, 404]);
    ok(await api.post(`/v0/pages/${published.pageId}/restore`));
    ok(await api.post(`/v0/pages/${published.pageId}/publish`));
    expect((await onBothNodes(published.url)).map((answer) => answer.status)).toEqual([200, 200]);
  });

  it('an edit of the page', async () => {
    const published = await publishPage();
    await onBothNodes(published.url);
    ok(
      await api.patch(`/v0/pages/${published.pageId}`, {
        footerLinks: [{ title: 'Served', links: [{ text: 'Fresh link', url: 'https://example.com/fresh' }] }],
      }),
    );
    expect((await onBothNodes(published.url)).every((answer) => answer.html.includes('Fresh link'))).toBe(
      true,
    );
  });
});

describe('the generation, read once per turn of the event loop', () => {
  it('is read once by the views of one turn; a change committed on another node before the next shows in it', async () => {
    const brandId = `brand-${++paths}`;
    ok(await api.request('PUT', `/v0/brands/${brandId}`, { body: { name: 'Before Comets' } }), 201);
    const published = await publishPage({ brandId });
    await onBothNodes(published.url);
    queries.count = 0;
    // In the process, so that the ten arrive in one turn.
    const host = new URL(server.pagesUrl).host;
    const views = await Promise.all(
      Array.from({ length: 10 }, () => server.pagesApp.inject({ url: published.url, headers: { host } })),
    );
    expect(views.every((answer) => answer.statusCode === 200 && answer.body.includes('Before Comets'))).toBe(
      true,
    );
    expect(queries.count).toBe(1);
    const onOtherNode = new Client(other.url, api.apiKey, api.tenantId);
    ok(await onOtherNode.request('PUT', `/v0/brands/${brandId}`, { body: { name: 'After Comets' } }));
    expect((await view(server, published.url)).html).toContain('After Comets');
  });
});

describe('a tenant domain', () => {
  it('is kept by its hostname, and a hostname taken by another tenant serves that tenant’s page', async () => {
    const hostname = `go-${++paths}.served.example`;
    const onDomain = async (client: Client, name: string) => {
      const domain = ok(await client.post('/v0/tenant_domains', { hostname }), 201).body;
      const page = await publishLinkedPage(server, client, {
        page: { name },
        personalize: false,
        path: `/d-${++paths}`,
      });
      const link = ok(
        await client.post('/v0/page_links', {
          path: '/offer',
          target: { targetType: 'audience', audienceId: page.audienceId },
          tenantDomainId: domain.tenantDomainId,
        }),
        201,
      ).body;
      return { domain, link };
    };
    const first = await onDomain(api, 'First owner');
    expect(headline((await getAtHost(server.pagesUrl, hostname, '/offer')).body)).toBe('First owner');
    queries.count = 0;
    expect(headline((await getAtHost(server.pagesUrl, hostname, '/OFFER/')).body)).toBe('First owner');
    expect(queries.count).toBe(1);
    ok(await api.delete(`/v0/page_links/${first.link.pageLinkId}`));
    ok(await api.delete(`/v0/tenant_domains/${first.domain.tenantDomainId}`));
    await onDomain(await server.newTenant(), 'Second owner');
    for (const node of [other, server]) {
      expect(headline((await getAtHost(node.pagesUrl, hostname, '/offer')).body)).toBe('Second owner');
    }
  });
});

describe('HTTP', () => {
  let published: LinkedPage;
  beforeAll(async () => {
    published = await publishPage();
  });

  it('sends the gzip bytes kept when the client takes gzip, the plain ones otherwise', async () => {
    const plain = await rawGetFrom(server, published.url);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await rawGetFrom(server, published.url, { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(zipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    const refused = await rawGetFrom(server, published.url, { 'accept-encoding': 'gzip;q=0, br' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.toString('utf8')).toBe(plain.body.toString('utf8'));
  });

  it('answers If-None-Match with 304 and no body while the page is unchanged, per encoding', async () => {
    const plain = await rawGetFrom(server, published.url);
    const etag = plain.headers.etag ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(plain.headers['cache-control']).toBe('no-cache');
    const again = await rawGetFrom(other, published.url, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    const zipped = await rawGetFrom(server, published.url, { 'accept-encoding': 'gzip' });
    expect(zipped.headers.etag).not.toBe(etag);
    expect(
      (await rawGetFrom(server, published.url, { 'accept-encoding': 'gzip', 'if-none-match': etag })).status,
    ).toBe(200);
    const revalidated = await rawGetFrom(server, published.url, {
      'accept-encoding': 'gzip',
      'if-none-match': `"other", ${zipped.headers.etag}`,
    });
    expect(revalidated.status).toBe(304);
    ok(
      await api.patch(`/v0/pages/${published.pageId}/audiences/${published.audienceId}`, {
        actionUrlOverride: 'https://example.com/changed',
      }),
    );
    const changed = await rawGetFrom(server, published.url, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.toString('utf8')).toContain('https://example.com/changed');
  });

  it('keeps the 404 page uncached and unkept', async () => {
    const answer = await rawGetFrom(server, `${published.url}-missing`, { 'accept-encoding': 'gzip' });
    expect(answer.status).toBe(404);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers.etag).toBeUndefined();
    expect(gunzipSync(answer.body).toString('utf8')).toContain('Page not found');
  });
});

describe('images', () => {
  it('load from lasting, cacheable URLs, and stop once their file is deleted', async () => {
    const fileId = await uploadImage(api, png(9, 8, 7));
    const assetId = ok(await api.post('/v0/assets', { assetType: 'image', name: 'Logo', fileId }), 201).body
      .assetId;
    const published = await publishPage({
      actionCardWidgets: [{ type: 'logos', logos: [{ image: { altText: 'Globex', assetId } }] }],
    });
    const { html } = await view(server, published.url);
    const src = (html.match(/<img src="([^"]+)" alt="Globex"/)?.[1] ?? '').replaceAll('&amp;', '&');
    expect(src).toContain(`/v0/public/images/${fileId}?`);
    expect(src).not.toContain('expires=');
    const image = await fetch(src);
    expect(image.status).toBe(200);
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(png(9, 8, 7));
    // Altered, it is refused.
    expect((await fetch(src.replace('type=png', 'type=jpeg'))).status).toBe(403);

    ok(await api.delete(`/v0/assets/${assetId}`));
    await assetPurge(server.storage).run(server.jobContext(Date.now() + 31 * DAY));
    expect((await fetch(src)).status).toBe(404);
    const after = await onBothNodes(published.url);
    for (const answer of after) {
      expect(answer.html).not.toContain('<img src=');
      expect(answer.html).toContain('<li class="logo-name">Globex</li>');
    }
  });
});
