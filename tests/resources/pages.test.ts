import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeletedPages } from '../../src/resources/pages/purge.ts';
import { Page, PageList, PageSearchList } from '../../src/resources/pages/schema.ts';
import { uploadImage } from '../helpers/images.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';
import { OFF_SITE_PATHS, PAGE_LINKS, SCRIPT_URLS } from '../helpers/urls.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

function pageBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Spring launch',
    pageContext: 'Our spring product launch for mid-market retailers.',
    brandId: 'brand-1',
    actions: [{ buttonTitle: 'Book a demo', actionType: 'link', url: 'https://example.com/demo' }],
    actionCardWidgets: [],
    scripts: [],
    ...overrides,
  };
}

async function createPage(overrides: Record<string, unknown> = {}, client = api) {
  const response = await client.post('/v0/pages', pageBody(overrides));
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(Page, response.body);
  return response.body;
}

describe('POST /v0/pages', () => {
  it('creates a draft page with defaults, 201 with Location', async () => {
    const response = await api.post('/v0/pages', pageBody());
    expect(response.status).toBe(201);
    expectSchema(Page, response.body);
    expect(response.headers.get('location')).toBe(`/v0/pages/${response.body.pageId}`);
    expect(response.body).toMatchObject({
      name: 'Spring launch',
      title: 'Spring launch',
      pageType: 'inbound',
      status: 'draft',
      brandId: 'brand-1',
      audiencesCount: 0,
      archivedAt: null,
      deletedAt: null,
      actionCardWidgets: [],
      scripts: [],
    });
    expect(response.body.pageId).toMatch(/^page_[a-z0-9]{26}$/);
    expect(response.body.actions).toEqual([
      {
        actionId: expect.stringMatching(/^action_[a-z0-9]{26}$/),
        actionIndex: 0,
        purpose: '',
        buttonTitle: 'Book a demo',
        actionType: 'link',
        url: 'https://example.com/demo',
      },
    ]);
    expect(response.body).not.toHaveProperty('footerLinks');
    expect(response.body).not.toHaveProperty('metadata');
    expect(response.body).not.toHaveProperty('headerActionId');
  });

  it('keeps every field of a full page', async () => {
    const page = await createPage({
      pageType: 'sales_deck',
      actions: [
        { actionId: 'demo', purpose: 'Convert', buttonTitle: 'Demo', actionType: 'link', url: '/demo' },
        { actionId: 'call', buttonTitle: 'Call us', actionType: 'phone', url: 'tel:+15550100' },
      ],
      headerActionId: 'call',
      actionCardWidgets: [
        {
          type: 'logos',
          title: 'Trusted by',
          logos: [{ image: { altText: 'Acme', url: 'https://cdn.example/acme.png' } }],
        },
        { type: 'cta' },
      ],
      scripts: [
        { content: '<script>track()</script>', name: 'Tracker' },
        { content: 'x', enabled: false },
      ],
      footerLinks: [{ title: 'Legal', links: [{ text: 'Privacy', url: 'https://example.com/privacy' }] }],
      metadata: {
        title: 'Spring | Acme',
        description: 'Desc',
        keywords: ['a', 'b'],
        robots: ['noindex', 'follow'],
      },
    });
    expect(page.title).toBe('Spring | Acme');
    expect(
      page.actions.map((a: { actionId: string; actionIndex: number }) => [a.actionId, a.actionIndex]),
    ).toEqual([
      ['demo', 0],
      ['call', 1],
    ]);
    expect(page.headerActionId).toBe('call');
    expect(page.actionCardWidgets).toEqual([
      {
        type: 'logos',
        title: 'Trusted by',
        logos: [{ image: { altText: 'Acme', url: 'https://cdn.example/acme.png', fileId: '', assetId: '' } }],
      },
      { type: 'cta', title: '', logos: [] },
    ]);
    expect(page.scripts).toEqual([
      { content: '<script>track()</script>', enabled: true, name: 'Tracker', description: '' },
      { content: 'x', enabled: false, name: '', description: '' },
    ]);
    expect(page.footerLinks).toEqual([
      {
        id: 'group-1',
        title: 'Legal',
        links: [{ id: 'link-1', text: 'Privacy', url: 'https://example.com/privacy' }],
      },
    ]);
    expect(page.metadata).toEqual({
      title: 'Spring | Acme',
      description: 'Desc',
      keywords: ['a', 'b'],
      robots: ['noindex', 'follow'],
    });
  });

  it.each([
    ['a missing name', { name: undefined }, '/body/name'],
    ['an empty name', { name: '' }, '/body/name'],
    ['an empty pageContext', { pageContext: '' }, '/body/pageContext'],
    ['a missing pageContext', { pageContext: undefined }, '/body/pageContext'],
    ['a missing brandId', { brandId: undefined }, '/body/brandId'],
    ['a missing actions array', { actions: undefined }, '/body/actions'],
    ['a missing actionCardWidgets array', { actionCardWidgets: undefined }, '/body/actionCardWidgets'],
    ['a missing scripts array', { scripts: undefined }, '/body/scripts'],
    ['an unknown pageType', { pageType: 'landing' }, '/body/pageType'],
    ['an action without buttonTitle', { actions: [{ actionType: 'link' }] }, '/body/actions/0/buttonTitle'],
    [
      'an action with an empty buttonTitle',
      { actions: [{ buttonTitle: '', actionType: 'link' }] },
      '/body/actions/0/buttonTitle',
    ],
    ['an action without actionType', { actions: [{ buttonTitle: 'Go' }] }, '/body/actions/0/actionType'],
    [
      'an actionType over 64 characters',
      { actions: [{ buttonTitle: 'Go', actionType: 'x'.repeat(65) }] },
      '/body/actions/0/actionType',
    ],
    [
      'a buttonTitle over 255 characters',
      { actions: [{ buttonTitle: 'x'.repeat(256), actionType: 'link' }] },
      '/body/actions/0/buttonTitle',
    ],
    [
      'a javascript: action url',
      { actions: [{ buttonTitle: 'Go', actionType: 'link', url: 'javascript:alert(1)' }] },
      '/body/actions/0/url',
    ],
    [
      'repeated actionIds',
      {
        actions: [
          { actionId: 'same', buttonTitle: 'A', actionType: 'link' },
          { actionId: 'same', buttonTitle: 'B', actionType: 'link' },
        ],
      },
      '/body/actions/1/actionId',
    ],
    ['a headerActionId that is not an action', { headerActionId: 'nope' }, '/body/headerActionId'],
    ['a widget without type', { actionCardWidgets: [{ title: 'x' }] }, '/body/actionCardWidgets/0/type'],
    ['a script without content', { scripts: [{ name: 'x' }] }, '/body/scripts/0/content'],
    ['a script over 64 KiB', { scripts: [{ content: 'x'.repeat(65537) }] }, '/body/scripts/0/content'],
    [
      'a non-boolean script enabled',
      { scripts: [{ content: 'x', enabled: 'yes' }] },
      '/body/scripts/0/enabled',
    ],
    [
      'metadata with ogImageUrl',
      { metadata: { ogImageUrl: 'https://x.example/a.png' } },
      '/body/metadata/ogImageUrl',
    ],
    [
      'metadata with twitterImageFileId',
      { metadata: { twitterImageFileId: 'file_x' } },
      '/body/metadata/twitterImageFileId',
    ],
    ['an unknown robots value', { metadata: { robots: ['maybe'] } }, '/body/metadata/robots/0'],
    ['an unknown field', { color: 'red' }, '/body/color'],
    [
      'a footer link without text',
      { footerLinks: [{ links: [{ url: '/x' }] }] },
      '/body/footerLinks/0/links/0/text',
    ],
  ])('rejects %s with 400 and creates nothing', async (_label, overrides, path) => {
    const before = (await api.get('/v0/pages?limit=1')).body.totalCount;
    const response = await api.post('/v0/pages', pageBody(overrides));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await api.get('/v0/pages?limit=1')).body.totalCount).toBe(before);
  });
});

describe('GET and PATCH /v0/pages/{id}', () => {
  it('reads a page; 404 for unknown, malformed and foreign ids', async () => {
    const page = await createPage();
    expect((await api.get(`/v0/pages/${page.pageId}`)).body).toEqual(page);
    const foreign = await createPage({}, await server.newTenant());
    for (const id of ['page_00000000000000000000000000', 'x', foreign.pageId]) {
      expect((await api.get(`/v0/pages/${id}`)).status).toBe(404);
    }
  });

  it('changes only the given fields, recomputes the title and moves updatedAt', async () => {
    const page = await createPage({ metadata: { title: 'Meta title' } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = await api.patch(`/v0/pages/${page.pageId}`, { name: 'Renamed', pageType: 'custom' });
    expect(renamed.status).toBe(200);
    expectSchema(Page, renamed.body);
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      title: 'Meta title',
      pageType: 'custom',
      brandId: 'brand-1',
    });
    expect(renamed.body.actions).toEqual(page.actions);
    expect(renamed.body.updatedAt).not.toBe(page.updatedAt);
    const cleared = await api.patch(`/v0/pages/${page.pageId}`, { metadata: null });
    expect(cleared.body.title).toBe('Renamed');
    expect(cleared.body).not.toHaveProperty('metadata');
  });

  it('checks headerActionId against the resulting actions', async () => {
    const page = await createPage({
      actions: [{ actionId: 'a', buttonTitle: 'A', actionType: 'link' }],
      headerActionId: 'a',
    });
    const response = await api.patch(`/v0/pages/${page.pageId}`, {
      actions: [{ actionId: 'b', buttonTitle: 'B', actionType: 'link' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('/body/headerActionId');
    const both = await api.patch(`/v0/pages/${page.pageId}`, {
      actions: [{ actionId: 'b', buttonTitle: 'B', actionType: 'link' }],
      headerActionId: 'b',
    });
    expect(both.status).toBe(200);
    expect(both.body.headerActionId).toBe('b');
  });

  it.each([
    ['a null name', { name: null }],
    ['an empty pageContext', { pageContext: '' }],
    ['a null actions', { actions: null }],
    ['an unknown field', { status: 'published' }],
  ])('rejects %s with 400 and changes nothing', async (_label, body) => {
    const page = await createPage();
    expect((await api.patch(`/v0/pages/${page.pageId}`, body)).status).toBe(400);
    expect((await api.get(`/v0/pages/${page.pageId}`)).body).toEqual(page);
  });

  it('refuses to change a deleted page (409) and another tenant’s page (404)', async () => {
    const page = await createPage();
    await api.delete(`/v0/pages/${page.pageId}`);
    const response = await api.patch(`/v0/pages/${page.pageId}`, { name: 'x' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('invalid_state');
    const other = await server.newTenant();
    expect((await other.patch(`/v0/pages/${page.pageId}`, { name: 'x' })).status).toBe(404);
  });
});

describe('URLs a page links to (issue 21 finding 11)', () => {
  const actionUrl = (url: string) => ({ actions: [{ buttonTitle: 'Go', actionType: 'link', url }] });
  const footerLinkUrl = (url: string) => ({
    footerLinks: [{ title: 'More', links: [{ text: 'About', url }] }],
  });
  const fields: [string, (url: string) => Record<string, unknown>, string][] = [
    ['an action url', actionUrl, '/body/actions/0/url'],
    ['a footer link url', footerLinkUrl, '/body/footerLinks/0/links/0/url'],
    [
      'a logo image url',
      (url) => ({ actionCardWidgets: [{ type: 'logos', logos: [{ image: { url, altText: 'Logo' } }] }] }),
      '/body/actionCardWidgets/0/logos/0/image/url',
    ],
    ['metadata canonicalUrl', (url) => ({ metadata: { canonicalUrl: url } }), '/body/metadata/canonicalUrl'],
    ['metadata ogUrl', (url) => ({ metadata: { ogUrl: url } }), '/body/metadata/ogUrl'],
  ];

  it.each(fields)(
    'refuses script URLs and protocol-relative "paths" in %s on create and on update, storing nothing',
    async (_label, field, path) => {
      const kept = await createPage();
      for (const url of [...SCRIPT_URLS, ...OFF_SITE_PATHS]) {
        const before = (await api.get('/v0/pages?limit=1')).body.totalCount;
        const created = await api.post('/v0/pages', pageBody(field(url)));
        expect(created.status, JSON.stringify(url)).toBe(400);
        expect(created.body.code).toBe('validation_failed');
        expect(created.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
        expect((await api.get('/v0/pages?limit=1')).body.totalCount).toBe(before);

        const updated = await api.patch(`/v0/pages/${kept.pageId}`, field(url));
        expect(updated.status, JSON.stringify(url)).toBe(400);
        expect(updated.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      }
      expect((await api.get(`/v0/pages/${kept.pageId}`)).body).toEqual(kept);
    },
  );

  it.each([
    ['an action url', actionUrl, (page: any) => page.actions[0].url],
    ['a footer link url', footerLinkUrl, (page: any) => page.footerLinks[0].links[0].url],
  ])('accepts http(s), mailto:, tel:, paths and fragments in %s', async (_label, field, stored) => {
    for (const url of PAGE_LINKS) {
      const page = await createPage(field(url));
      expect(stored(page)).toBe(url);
      const updated = await api.patch(`/v0/pages/${page.pageId}`, field(url));
      expect(updated.status).toBe(200);
      expect(stored(updated.body)).toBe(url);
    }
  });
});

describe('page states', () => {
  const action = (page: { pageId: string }, name: string, body?: unknown) =>
    api.request('POST', `/v0/pages/${page.pageId}/${name}`, body === undefined ? {} : { body });

  it('draft → published → archived → restored draft, with repeats unchanged', async () => {
    const page = await createPage();
    const published = await action(page, 'publish', {});
    expect(published.status).toBe(200);
    expectSchema(Page, published.body);
    expect(published.body.status).toBe('published');
    const again = await action(page, 'publish');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(published.body);

    const archived = await action(page, 'archive');
    expect(archived.body.status).toBe('archived');
    expect(archived.body.archivedAt).toMatch(/^\+\d+$/);
    expect((await action(page, 'archive')).body).toEqual(archived.body);

    const republish = await action(page, 'publish');
    expect(republish.status).toBe(409);
    expect(republish.body.code).toBe('invalid_state');
    expect(republish.body.detail).toContain('archived');

    const restored = await action(page, 'restore', {});
    expect(restored.body).toMatchObject({ status: 'draft', archivedAt: null, deletedAt: null });
    expect((await action(page, 'restore')).body).toEqual(restored.body);
  });

  it('restore of a page neither archived nor deleted returns it unchanged', async () => {
    const page = await createPage();
    await action(page, 'publish');
    const current = (await api.get(`/v0/pages/${page.pageId}`)).body;
    const restored = await action(page, 'restore');
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(current);
  });

  it('soft delete hides the page from lists and search, keeps it readable and restorable', async () => {
    const tenant = await server.newTenant();
    const page = await createPage({ name: 'Deletable unique' }, tenant);
    const deleted = await tenant.delete(`/v0/pages/${page.pageId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deletedAt).toMatch(/^\+\d+$/);
    expect(deleted.body.status).toBe('draft');
    expect((await tenant.delete(`/v0/pages/${page.pageId}`)).body).toEqual(deleted.body);
    expect((await tenant.get(`/v0/pages/${page.pageId}`)).body.deletedAt).toBe(deleted.body.deletedAt);
    expect((await tenant.get('/v0/pages')).body.totalCount).toBe(0);
    expect((await tenant.get('/v0/pages/search?query=deletable')).body.items).toEqual([]);
    for (const name of ['publish', 'archive']) {
      const response = await tenant.request('POST', `/v0/pages/${page.pageId}/${name}`);
      expect(response.status).toBe(409);
      expect(response.body.detail).toContain('deleted');
    }
    const restored = await tenant.request('POST', `/v0/pages/${page.pageId}/restore`);
    expect(restored.body).toMatchObject({ status: 'draft', deletedAt: null });
    expect((await tenant.get('/v0/pages')).body.totalCount).toBe(1);
  });

  it('restore clears both archive and delete', async () => {
    const page = await createPage();
    await action(page, 'archive');
    await api.delete(`/v0/pages/${page.pageId}`);
    const restored = await action(page, 'restore');
    expect(restored.body).toMatchObject({ status: 'draft', archivedAt: null, deletedAt: null });
  });

  it('actions reject a body with fields, and foreign pages are 404', async () => {
    const page = await createPage();
    expect((await action(page, 'publish', { force: true })).status).toBe(400);
    const other = await server.newTenant();
    for (const name of ['publish', 'archive', 'restore']) {
      expect((await other.request('POST', `/v0/pages/${page.pageId}/${name}`)).status).toBe(404);
    }
    expect((await other.delete(`/v0/pages/${page.pageId}`)).status).toBe(404);
    expect((await api.get(`/v0/pages/${page.pageId}`)).body.status).toBe('draft');
  });

  it('a deleted page is erased 30 days later by the purge', async () => {
    const page = await createPage();
    const kept = await createPage();
    await api.delete(`/v0/pages/${page.pageId}`);
    await purgeDeletedPages.run(server.jobContext(Date.now() + 29 * 86_400_000));
    expect((await api.get(`/v0/pages/${page.pageId}`)).status).toBe(200);
    await purgeDeletedPages.run(server.jobContext(Date.now() + 31 * 86_400_000));
    expect((await api.get(`/v0/pages/${page.pageId}`)).status).toBe(404);
    expect((await api.get(`/v0/pages/${kept.pageId}`)).status).toBe(200);
  });
});

describe('GET /v0/pages and /v0/pages/search', () => {
  let tenant: Client;
  beforeAll(async () => {
    tenant = await server.newTenant();
    for (const [name, title] of [
      ['Alpha retail', undefined],
      ['Beta banking', 'Finance | Beta'],
      ['Gamma retail', undefined],
    ]) {
      await createPage(title ? { name, metadata: { title } } : { name }, tenant);
    }
  });

  it('lists newest first with status and query filters', async () => {
    const list = await tenant.get('/v0/pages');
    expectSchema(PageList, list.body);
    expect(list.body.items.map((p: { name: string }) => p.name)).toEqual([
      'Gamma retail',
      'Beta banking',
      'Alpha retail',
    ]);
    expect((await tenant.get('/v0/pages?query=RETAIL')).body.totalCount).toBe(2);
    expect(
      (await tenant.get('/v0/pages?query=finance')).body.items.map((p: { name: string }) => p.name),
    ).toEqual(['Beta banking']);
    expect((await tenant.get('/v0/pages?status=published')).body.totalCount).toBe(0);
    expect((await tenant.get('/v0/pages?status=gone')).status).toBe(400);
  });

  it('search answers name and audiencesCount of the first matches, no cursor', async () => {
    const response = await tenant.get('/v0/pages/search?query=retail&limit=1');
    expect(response.status).toBe(200);
    expectSchema(PageSearchList, response.body);
    expect(response.body).toEqual({
      hasMore: true,
      items: [{ pageId: expect.any(String), name: 'Gamma retail', audiencesCount: 0 }],
      nextCursor: null,
      totalCount: 2,
    });
    expect((await tenant.get('/v0/pages/search?query=nothing')).body).toEqual({
      hasMore: false,
      items: [],
      nextCursor: null,
      totalCount: 0,
    });
  });

  it('search validates its query', async () => {
    expect((await tenant.get('/v0/pages/search?limit=0')).status).toBe(400);
    expect((await tenant.get(`/v0/pages/search?query=${'q'.repeat(201)}`)).status).toBe(400);
  });

  it('shows nothing of another tenant', async () => {
    expect((await api.get('/v0/pages/search?query=gamma')).body.items).toEqual([]);
  });
});

describe('image references in widgets', () => {
  const widgetWith = (image: Record<string, string>) => ({
    actionCardWidgets: [{ type: 'logos', logos: [{ image }] }],
  });

  it('accepts an image file and an asset of the tenant', async () => {
    const fileId = await uploadImage(api);
    const asset = await api.post('/v0/assets', { assetType: 'image', name: 'Logo', fileId });
    const page = await createPage(widgetWith({ fileId, assetId: asset.body.assetId, altText: 'Logo' }));
    expect(page.actionCardWidgets[0].logos[0].image).toEqual({
      fileId,
      assetId: asset.body.assetId,
      altText: 'Logo',
      url: '',
    });
  });

  it('rejects a file or asset that is not the tenant’s with 400 at its path', async () => {
    const other = await server.newTenant();
    const foreignFile = await uploadImage(other);
    for (const [image, field] of [
      [{ fileId: 'file_00000000000000000000000000' }, 'fileId'],
      [{ fileId: foreignFile }, 'fileId'],
      [{ assetId: 'asset_00000000000000000000000000' }, 'assetId'],
    ] as const) {
      const response = await api.post('/v0/pages', pageBody(widgetWith(image)));
      expect(response.status).toBe(400);
      expect(response.body.errors[0].path).toBe(`/body/actionCardWidgets/0/logos/0/image/${field}`);
    }
  });
});
