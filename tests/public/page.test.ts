import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { readToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { getTenant } from '../../src/resources/tenants/service.ts';
import { escapeHtml } from '../../src/shared/html.ts';
import { Signer } from '../../src/shared/signing.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { png, uploadImage } from '../helpers/images.ts';
import { type LinkedPage, publishLinkedPage, SAMPLE_PAGE } from '../helpers/pages.ts';
import { QueryCounter } from '../helpers/query-counter.ts';
import { type Client, startServer, TEST_SECRET, type TestServer, testDatabase } from '../helpers/server.ts';

let base: Database;
let server: TestServer;
let api: Client;
let visitor: Client;
const queries = new QueryCounter();

beforeAll(async () => {
  base = await testDatabase();
  server = await startServer({ database: base.withPlugin(queries) });
  api = await server.newTenant();
  visitor = server.visitor();
});
afterAll(async () => {
  await server.close();
  await base.close();
});

let paths = 0;

async function slugOf(client: Client): Promise<string> {
  return (await getTenant(anyTables(server.database), client.tenantId)).slug;
}

function ok<T extends { status: number; body: unknown }>(response: T, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

/** A published page with an audience and a link to it (tests/helpers/pages.ts), for `client`. */
function publishPage(
  page: Record<string, unknown> = {},
  audience: Record<string, unknown> = {},
  { personalize = true, client = api, path = `/offers/page-${++paths}` } = {},
): Promise<LinkedPage> {
  return publishLinkedPage(server, client, { page, audience, personalize, path });
}

async function publishedContent(published: LinkedPage) {
  const versions = await api.get(`/v0/pages/${published.pageId}/audiences/${published.audienceId}/versions`);
  return versions.body.items.find((version: { state: string }) => version.state === 'published').content;
}

async function visit(url: string, status = 200) {
  const response = await visitor.get(url);
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  return response;
}

/** The lasting image URL of `fileId` as the page has it (HTML-escaped): no expiry. */
const signedFileUrl = (fileId: string) =>
  new RegExp(
    `http://127\\.0\\.0\\.1:\\d+/v0/public/images/${fileId}\\?tenant=[^"&]+&amp;type=png&amp;signature=[^"&]+`,
  );

describe('GET /p/{tenantSlug}/{path}', () => {
  let published: LinkedPage;
  let html: string;
  let headers: Headers;
  let files: { logo: string; asset: string; og: string };
  let assetId: string;

  beforeAll(async () => {
    files = {
      logo: await uploadImage(api, png(10, 20, 30)),
      asset: await uploadImage(api, png(40, 50, 60)),
      og: await uploadImage(api, png(70, 80, 90)),
    };
    assetId = ok(
      await api.post('/v0/assets', { assetType: 'image', name: 'Globex', fileId: files.asset }),
      201,
    ).body.assetId;
    const person = ok(
      await api.post('/v0/persons', { name: 'Jane Doe', email: 'jane@globex.example' }),
      201,
    ).body;
    published = await publishPage(
      {
        actionCardWidgets: [
          {
            type: 'logos',
            title: 'Trusted by',
            logos: [
              { image: { altText: 'Initech', url: 'https://cdn.example.com/initech.svg' } },
              { image: { altText: 'Hooli', fileId: files.logo } },
              { image: { altText: 'Globex', assetId } },
            ],
          },
        ],
        scripts: [
          { name: 'on', content: '<script>window.enabledScript = 1</script>' },
          { name: 'off', content: '<script>window.disabledScript = 1</script>', enabled: false },
        ],
        footerLinks: [
          {
            title: 'Company',
            links: [
              { text: 'About us', url: 'https://example.com/about' },
              { text: 'Privacy', url: '/privacy' },
            ],
          },
        ],
        metadata: {
          title: 'Spring launch for you',
          description: 'A page made for you',
          keywords: ['retail', 'growth'],
          author: 'Acme Marketing',
          robots: ['index', 'follow'],
          canonicalUrl: 'https://example.com/spring',
          ogTitle: 'The spring launch',
          ogDescription: 'Open graph description',
          ogSiteName: 'Acme',
          ogUrl: 'https://example.com/spring/og',
          ogImageAlt: 'Spring hero',
          twitterTitle: 'Spring on Twitter',
          twitterDescription: 'Twitter description',
          twitterSite: '@acme',
          twitterCreator: '@jane',
          twitterImageAlt: 'Twitter hero',
          themeColor: '#0f766e',
        },
      },
      {
        personId: person.personId,
        supplementaryContext: 'Globex is opening 40 stores this spring.',
        actionFormInstructionsOverride: 'Tell Jane what you need.',
        metadataOverride: { ogImageFileId: files.og, twitterImageUrl: 'https://cdn.example.com/tw.png' },
      },
    );
    const response = await visit(published.url);
    html = response.body;
    headers = response.headers;
  });

  it('answers 200 HTML with nosniff, a referrer policy, revalidation by ETag, and a sandbox that lets scripts run in an origin of their own', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    // Every tenant shares this origin: the page's scripts run, but not as the origin.
    const policy = headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/^sandbox /);
    expect(policy).toContain('allow-scripts');
    expect(policy).toContain('allow-forms');
    expect(policy).not.toContain('allow-same-origin');
    expect(headers.get('access-control-allow-origin')).toBeNull();
    expect(headers.get('cache-control')).toBe('no-cache');
    expect(headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('has the title and meta tags of the effective metadata, images as signed file URLs', () => {
    expect(html).toContain('<title>Spring launch for you</title>');
    for (const tag of [
      '<meta name="description" content="A page made for you">',
      '<meta name="keywords" content="retail, growth">',
      '<meta name="author" content="Acme Marketing">',
      '<meta name="robots" content="index, follow">',
      '<link rel="canonical" href="https://example.com/spring">',
      '<meta property="og:title" content="The spring launch">',
      '<meta property="og:description" content="Open graph description">',
      '<meta property="og:site_name" content="Acme">',
      '<meta property="og:url" content="https://example.com/spring/og">',
      '<meta property="og:image:alt" content="Spring hero">',
      '<meta name="twitter:card" content="summary_large_image">',
      '<meta name="twitter:title" content="Spring on Twitter">',
      '<meta name="twitter:description" content="Twitter description">',
      '<meta name="twitter:image" content="https://cdn.example.com/tw.png">',
      '<meta name="twitter:image:alt" content="Twitter hero">',
      '<meta name="twitter:site" content="@acme">',
      '<meta name="twitter:creator" content="@jane">',
      '<meta name="theme-color" content="#0f766e">',
    ]) {
      expect(html).toContain(tag);
    }
    const ogImage = html.match(/<meta property="og:image" content="([^"]+)">/)?.[1];
    expect(ogImage).toMatch(signedFileUrl(files.og));
    expect(html).toContain('<html lang="en" style="--accent:#0f766e">');
  });

  it("shows the published version's headline, subheadline and sections", async () => {
    const content = await publishedContent(published);
    expect(content.headline).toMatch(/Jane|Globex/);
    expect(html).toContain(`<h1>${escapeHtml(content.headline)}</h1>`);
    expect(html).toContain(`<p class="lead">${escapeHtml(content.subheadline)}</p>`);
    expect(content.sections.length).toBeGreaterThan(0);
    for (const section of content.sections) expect(html).toContain(`<h2>${escapeHtml(section.heading)}</h2>`);
    // The audience's context guides generation and is never shown.
    expect(html).not.toContain('Globex is opening 40 stores this spring.');
  });

  it('shows the actions as buttons, the header action in the header, form actions leading to the form', () => {
    expect(html).toContain(
      '<a class="button button--primary" href="https://example.com/demo" data-action-id="demo">Book a demo</a>',
    );
    expect(html).toContain(
      '<a class="button button--secondary" href="#tailor-form" data-action-id="contact">Talk to sales</a>',
    );
    const header = html.slice(html.indexOf('<header'), html.indexOf('</header>'));
    // No brand profile: the site name stands in the header, never the tenant's name.
    expect(header).toContain('<span class="brand"><span>Acme</span></span>');
    expect(header).toContain('href="#tailor-form" data-action-id="contact">Talk to sales</a>');
    expect(header).not.toContain('data-action-id="demo"');
  });

  it('shows widgets with their logos: a URL, a signed file URL and the signed URL of an asset’s file', async () => {
    expect(html).toContain('<h2>Trusted by</h2>');
    expect(html).toContain('<img src="https://cdn.example.com/initech.svg" alt="Initech"');
    const logoSources = [...html.matchAll(/<img src="([^"]+)" alt="([^"]+)"/g)].map(([, src, alt]) => ({
      src,
      alt,
    }));
    expect(logoSources.map((logo) => logo.alt)).toEqual(['Initech', 'Hooli', 'Globex']);
    expect(logoSources[1]?.src).toMatch(signedFileUrl(files.logo));
    expect(logoSources[2]?.src).toMatch(signedFileUrl(files.asset));
    const served = await fetch((logoSources[1]?.src ?? '').replaceAll('&amp;', '&'));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('shows the footer link groups', () => {
    const footer = html.slice(html.indexOf('<footer'), html.indexOf('</footer>'));
    expect(footer).toContain('<h2>Company</h2>');
    expect(footer).toContain('<a href="https://example.com/about">About us</a>');
    expect(footer).toContain('<a href="/privacy">Privacy</a>');
  });

  it('inserts the enabled scripts as they are, and only those', () => {
    expect(html).toContain('<script>window.enabledScript = 1</script>');
    expect(html).not.toContain('disabledScript');
  });

  it('has the action form with the audience’s instructions', () => {
    expect(html).toContain('id="tailor-form"');
    expect(html).toContain('<form data-tailor-form>');
    for (const field of ['name="name"', 'name="email" type="email"', 'name="company"', 'name="message"']) {
      expect(html).toContain(field);
    }
    expect(html).toContain('<p>Tell Jane what you need.</p>');
    expect(html).toContain('<h2>Talk to sales</h2>');
  });

  it('carries a signed token naming tenant, page, audience and link, valid for TOKEN_VALID_MS, and the tracker', () => {
    const token = html.match(/data-tailor-token="([^"]+)"/)?.[1] ?? '';
    const claims = readToken(new Signer(TEST_SECRET), token, Date.now());
    expect(claims).toMatchObject({
      tenantId: api.tenantId,
      pageId: published.pageId,
      audienceId: published.audienceId,
      pageLinkId: published.pageLinkId,
    });
    expect(claims?.expiresAt).toBeGreaterThan(Date.now() + TOKEN_VALID_MS - 60_000);
    expect(claims?.expiresAt).toBeLessThanOrEqual(Date.now() + TOKEN_VALID_MS);
    expect(html).toMatch(/<script src="\/v0\/public\/tracker\.js\?v=[0-9a-f]{16}" data-tailor-token="[^"]+"/);
  });

  it('serves the unpersonalized version 0 until another is published; a root link and a trailing slash work', async () => {
    const tenant = await server.newTenant();
    const baseline = await publishPage(
      { name: 'Root page' },
      {},
      { personalize: false, client: tenant, path: '/' },
    );
    for (const url of [baseline.url, `${baseline.url}/`]) {
      const { body } = await visit(url);
      expect(body).toContain('<h1>Root page</h1>');
    }
    const nested = await publishPage({}, {}, { personalize: false, path: '/deep/nested/path' });
    expect((await visit(`${nested.url}/`)).body).toContain('<h1>Spring launch</h1>');
    expect((await visit(`/p/${await slugOf(api)}/Deep/NESTED/path`)).body).toContain(
      '<h1>Spring launch</h1>',
    );
  });
});

describe('search engines', () => {
  it('keep out of a page made for a named person unless the metadata says otherwise', async () => {
    const person = ok(await api.post('/v0/persons', { name: 'Private Person' }), 201).body;
    const personal = await publishPage({}, { personId: person.personId }, { personalize: false });
    expect((await visit(personal.url)).body).toContain('<meta name="robots" content="noindex, nofollow">');
    const chosen = await publishPage(
      {},
      { personId: person.personId, metadataOverride: { robots: ['index', 'follow'] } },
      { personalize: false },
    );
    expect((await visit(chosen.url)).body).toContain('<meta name="robots" content="index, follow">');
    const general = await publishPage({}, {}, { personalize: false });
    expect((await visit(general.url)).body).not.toContain('name="robots"');
  });
});

describe('addresses that show nothing answer a styled 404 page', () => {
  async function expectNotFound(url: string) {
    const response = await visit(url, 404);
    expect(response.body).toContain('<title>Page not found</title>');
    expect(response.body).toContain('<style>');
    expect(response.body).toContain('<meta name="robots" content="noindex">');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  }

  it('an unknown tenant or path', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    await expectNotFound(published.url.replace(/^\/p\/[^/]+/, '/p/no-such-tenant'));
    await expectNotFound(`/p/${await slugOf(api)}/no/such/path`);
    await expectNotFound(`/p/${await slugOf(api)}`);
    await expectNotFound(published.url.replace(/^\/p\/[^/]+/, `/p/${api.tenantId}`));
  });

  it("another tenant's path", async () => {
    const published = await publishPage({}, {}, { personalize: false });
    const other = await server.newTenant();
    await expectNotFound(published.url.replace(/^\/p\/[^/]+/, `/p/${await slugOf(other)}`));
  });

  it('a deleted link', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    ok(await api.delete(`/v0/page_links/${published.pageLinkId}`));
    await expectNotFound(published.url);
  });

  it('an archived audience', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    ok(await api.delete(`/v0/pages/${published.pageId}/audiences/${published.audienceId}`));
    await expectNotFound(published.url);
  });

  it('a draft page', async () => {
    const { pageId } = ok(await api.post('/v0/pages', SAMPLE_PAGE), 201).body;
    const { audienceId } = ok(await api.post(`/v0/pages/${pageId}/audiences`, {}), 201).body;
    const path = `/offers/draft-${++paths}`;
    ok(await api.post('/v0/page_links', { path, target: { targetType: 'audience', audienceId } }), 201);
    await expectNotFound(`/p/${await slugOf(api)}${path}`);
  });

  it('an archived page', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    await visit(published.url);
    ok(await api.post(`/v0/pages/${published.pageId}/archive`));
    await expectNotFound(published.url);
  });

  it('a deleted page', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    ok(await api.delete(`/v0/pages/${published.pageId}`));
    await expectNotFound(published.url);
  });
});

describe('escaping', () => {
  const TEXT = `x" onerror="alert(1)" '><script>alert(2)</script><img src=x onerror=alert(3)>`;
  const EVIL_URL = `https://evil.example/x"onerror="alert(1)"'><script>alert(2)</script>`;
  /** For the fields of at most 64 characters. */
  const SHORT = `x" onerror="alert(1)"><script>alert(2)</script>`;
  const text = (label: string) => `${label} ${TEXT}`;

  it.each([
    ['the page as it is (version 0)', false, ['name']],
    ['a personalized version', true, []],
  ])(
    'renders every page, audience, metadata, widget and footer field escaped: %s',
    async (_label, personalize, shownHere) => {
      const person = ok(
        await api.post('/v0/persons', { name: `Mallory ${TEXT}`, email: `mallory-${++paths}@evil.example` }),
        201,
      ).body;
      const published = await publishPage(
        {
          name: text('name'),
          pageContext: text('context'),
          brandId: text('brand'),
          actions: [
            {
              actionId: 'evil',
              buttonTitle: text('button'),
              purpose: text('purpose'),
              actionType: SHORT,
              url: EVIL_URL,
            },
          ],
          headerActionId: 'evil',
          actionCardWidgets: [
            {
              type: SHORT,
              title: text('widget title'),
              logos: [
                { image: { altText: text('alt'), url: EVIL_URL } },
                { image: { altText: text('alt only') } },
              ],
            },
          ],
          footerLinks: [{ title: text('group'), links: [{ text: text('link'), url: EVIL_URL }] }],
          metadata: {
            title: text('title'),
            description: text('description'),
            keywords: [text('keyword')],
            author: text('author'),
            canonicalUrl: EVIL_URL,
            ogTitle: text('og title'),
            ogDescription: text('og description'),
            ogImageAlt: text('og alt'),
            ogSiteName: text('site'),
            ogUrl: EVIL_URL,
            twitterTitle: text('twitter title'),
            twitterDescription: text('twitter description'),
            twitterImageAlt: text('twitter alt'),
            twitterSite: text('twitter site'),
            twitterCreator: text('twitter creator'),
            themeColor: SHORT,
          },
        },
        {
          personId: person.personId,
          customName: text('custom name'),
          supplementaryContext: text('supplementary'),
          actionFormInstructionsOverride: text('instructions'),
          actionUrlOverride: EVIL_URL,
          metadataOverride: { ogImageUrl: EVIL_URL, twitterImageUrl: EVIL_URL },
        },
        { personalize },
      );
      const { body } = await visit(published.url);
      if (personalize) expect(body).not.toContain(escapeHtml(text('supplementary')));
      expect(body).not.toContain('<script>alert(2)');
      expect(body).not.toContain('<img src=x');
      expect(body).not.toMatch(/["']\s*onerror=/);
      for (const label of [
        ...shownHere,
        'context',
        'button',
        'widget title',
        'alt',
        'alt only',
        'group',
        'link',
        'title',
        'description',
        'keyword',
        'author',
        'og title',
        'og description',
        'og alt',
        'site',
        'twitter title',
        'twitter description',
        'twitter alt',
        'twitter site',
        'twitter creator',
        'instructions',
      ]) {
        expect(body, label).toContain(escapeHtml(text(label)));
      }
      expect(body).toContain(`href="${escapeHtml(EVIL_URL)}"`);
      expect(body).toContain(`<meta property="og:image" content="${escapeHtml(EVIL_URL)}">`);
      expect(body).toContain(`<meta name="theme-color" content="${escapeHtml(SHORT)}">`);
      expect(body).toContain('<html lang="en">');
    },
  );

  it('links only to safe URLs, even when generated content names another kind or a protocol-relative "path"', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    await anyTables(server.database)
      .updateTable('audience_versions')
      .set({
        content: JSON.stringify({
          headline: 'Generated',
          subheadline: '',
          sections: [],
          actions: [{ actionId: 'demo', buttonTitle: 'Run', purpose: '', url: 'javascript:alert(1)' }],
          metadata: {
            ogImageUrl: 'javascript:alert(2)',
            ogUrl: '//evil.example/x',
            canonicalUrl: '/\\evil.example/y',
          },
        }),
      })
      .where('audience_id', '=', published.audienceId)
      .execute();
    const { body } = await visit(published.url);
    expect(body).not.toContain('javascript:');
    expect(body).not.toContain('evil.example');
    expect(body).toContain('href="#tailor-form" data-action-id="demo">Run</a>');
  });
});

describe('brands', () => {
  const tenantName = async (client: Client) =>
    (await getTenant(anyTables(server.database), client.tenantId)).name;

  it("serves a page in its brand: name, logo and website in the header, colours, footer text; never the tenant's name", async () => {
    const client = await server.newTenant();
    const fileId = await uploadImage(client, png(1, 2, 3));
    const logoAssetId = ok(await client.post('/v0/assets', { assetType: 'image', name: 'Logo', fileId }), 201)
      .body.assetId;
    ok(
      await client.request('PUT', '/v0/brands/acme', {
        body: {
          name: 'Acme Rockets',
          website: 'https://acme.example',
          logoAssetId,
          colors: { primary: '#1e3a8a', accent: '#f97316' },
          footerText: 'Acme Rockets Ltd, 1 Launch Pad',
        },
      }),
      201,
    );
    const published = await publishPage({}, {}, { client });
    const { body } = await visit(published.url);
    const header = body.slice(body.indexOf('<header'), body.indexOf('</header>'));
    expect(header).toContain('<a class="brand" href="https://acme.example">');
    expect(header).toMatch(signedFileUrl(fileId));
    expect(body.match(/<link rel="icon" href="([^"]+)">/)?.[1]).toMatch(signedFileUrl(fileId));
    expect(header).toContain('<span>Acme Rockets</span>');
    expect(body).toContain('<html lang="en" style="--accent:#1e3a8a;--glow:#f97316">');
    expect(body).toContain('<p class="footer-text">Acme Rockets Ltd, 1 Launch Pad</p>');
    expect(body).toContain(`© ${new Date().getFullYear()} Acme Rockets</p>`);
    expect(body).not.toContain(escapeHtml(await tenantName(client)));
  });

  it("without a profile the page's own title stands in the header and no name is in the footer", async () => {
    const client = await server.newTenant();
    const published = await publishPage(
      { metadata: { title: 'Spring at Acme' } },
      {},
      { client, personalize: false },
    );
    const { body } = await visit(published.url);
    expect(body).toContain('<span class="brand"><span>Spring at Acme</span></span>');
    expect(body).not.toContain('class="legal"');
    expect(body).not.toContain(escapeHtml(await tenantName(client)));
  });

  it('without a profile or a title of its own, the header names nothing: never the internal name', async () => {
    const client = await server.newTenant();
    const published = await publishPage({ name: 'Q3 outbound test 7' }, {}, { client, personalize: false });
    const { body } = await visit(published.url);
    const header = body.slice(body.indexOf('<header'), body.indexOf('</header>'));
    expect(header).not.toContain('class="brand"');
    expect(header).not.toContain('Q3 outbound test 7');
  });

  it('declares its icon: the brand logo, else none, so no browser asks for /favicon.ico', async () => {
    const { body } = await visit((await publishPage({}, {}, { personalize: false })).url);
    expect(body).toContain('<link rel="icon" href="data:,">');
  });

  it('a light brand colour is not used where white text must be read on it', async () => {
    const client = await server.newTenant();
    ok(
      await client.request('PUT', '/v0/brands/acme', {
        body: { name: 'Pale', colors: { primary: '#fef9c3' } },
      }),
      201,
    );
    const { body } = await visit((await publishPage({}, {}, { client, personalize: false })).url);
    expect(body).not.toContain('--accent:#fef9c3');
  });
});

describe('copy and widgets', () => {
  it('renders markdown copy as HTML, never its marks; links only to safe addresses', async () => {
    const published = await publishPage({}, {}, { personalize: false });
    await anyTables(server.database)
      .updateTable('audience_versions')
      .set({
        content: JSON.stringify({
          headline: 'Copy',
          subheadline: '',
          sections: [
            {
              heading: 'Plans',
              body: '# Growth\n\n**Bold** and *italic*, [a demo](https://example.com/demo), [a trap](javascript:alert(1)).\n\n- one\n- two\n\n<b>tag</b> ![logo](x.png)',
            },
          ],
          actions: [],
          metadata: {},
        }),
      })
      .where('audience_id', '=', published.audienceId)
      .execute();
    const { body } = await visit(published.url);
    const card = body.slice(
      body.indexOf('<h2>Plans</h2>'),
      body.indexOf('</article>', body.indexOf('<h2>Plans</h2>')),
    );
    expect(card).toContain('<p><strong>Growth</strong></p>');
    expect(card).toContain('<strong>Bold</strong> and <em>italic</em>');
    expect(card).toContain('<a href="https://example.com/demo">a demo</a>');
    expect(card).toContain(', a trap.');
    expect(card).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(card).not.toMatch(/\*\*|#|<b>|javascript:/);
  });

  it('a widget with a title and no logos leads to the first action; one with neither is left out', async () => {
    const published = await publishPage(
      {
        actionCardWidgets: [
          { type: 'cta', title: 'Start a free pilot', logos: [] },
          { type: 'logos', title: '', logos: [] },
        ],
      },
      {},
      { personalize: false },
    );
    const { body } = await visit(published.url);
    expect(body).toContain(
      '<article class="card widget widget--action widget--cta"><p class="widget-title">Start a free pilot</p><a class="button button--primary" href="https://example.com/demo" data-action-id="demo">Book a demo</a></article>',
    );
    expect(body).not.toContain('widget--logos');
  });
});

describe('queries', () => {
  async function queriesToRender(url: string): Promise<{ count: number; images: number }> {
    queries.count = 0;
    const { body } = await visit(url);
    return {
      count: queries.count,
      images: [...body.matchAll(/<img src="http:\/\/127\.0\.0\.1:\d+\/v0\/public\/images\//g)].length,
    };
  }

  it('are as many for fifty logos as for two: images resolve in one batch', async () => {
    const fileIds: string[] = [];
    for (let i = 0; i < 5; i++) fileIds.push(await uploadImage(api, png(i, i, i)));
    const assetIds: string[] = [];
    for (const fileId of fileIds.slice(0, 3)) {
      assetIds.push(
        ok(await api.post('/v0/assets', { assetType: 'image', name: 'logo', fileId }), 201).body.assetId,
      );
    }
    const small = await publishPage({
      actionCardWidgets: [
        { type: 'logos', logos: [{ image: { fileId: fileIds[0] } }, { image: { assetId: assetIds[0] } }] },
      ],
    });
    const large = await publishPage(
      {
        actionCardWidgets: Array.from({ length: 10 }, (_, widget) => ({
          type: 'logos',
          title: `Widget ${widget}`,
          logos: Array.from({ length: 5 }, (_, logo) => ({
            image:
              logo % 2 === 0
                ? { fileId: fileIds[(widget + logo) % fileIds.length] }
                : { assetId: assetIds[(widget + logo) % assetIds.length] },
          })),
        })),
      },
      { metadataOverride: { ogImageFileId: fileIds[4], twitterImageFileId: fileIds[3] } },
    );
    const one = await queriesToRender(small.url);
    const many = await queriesToRender(large.url);
    expect(one.images).toBe(2);
    expect(many.images).toBe(50);
    expect(many.count).toBe(one.count);
    // The render, and around it the serving generation read first, the tenant read again after it,
    // and the rendered page kept.
    expect(one.count).toBeLessThanOrEqual(16);
    // Kept since (src/workflows/page-view/served.ts): the next view is one read, whatever the page holds.
    expect((await queriesToRender(small.url)).count).toBe(1);
    expect((await queriesToRender(large.url)).count).toBe(1);
  });
});

describe('GET /v0/public/tracker.js', () => {
  it('serves the script as JavaScript, cacheable, with an ETag', async () => {
    const response = await visitor.get('/v0/public/tracker.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(response.body).toContain('sendBeacon');
    expect(response.body).toContain('/v0/public/events');
    expect(response.body).toContain('/v0/public/forms');
    expect(response.body.length).toBeLessThan(8 * 1024);
    const etag = response.headers.get('etag') ?? '';
    const again = await visitor.get('/v0/public/tracker.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });
});
