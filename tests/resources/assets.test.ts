import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Asset, AssetList, TrashList } from '../../src/resources/assets/schema.ts';
import { storageKey } from '../../src/resources/files/download-links.ts';
import { giveUp } from '../../src/resources/files/service.ts';
import { assetPurge } from '../../src/workflows/asset-purge/task.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { png as redPng } from '../helpers/images.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, onPostgres, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

const DAY = 86_400_000;

/** A 1×1 PNG; `shade` makes each one's bytes different. */
const png = (shade = 0) => redPng(shade, 0, 0);

async function uploadFile(client = api, bytes = png()): Promise<string> {
  const response = await client.request('POST', '/v0/files', {
    raw: bytes,
    headers: { 'content-type': 'image/png' },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.fileId;
}

async function createAsset(body: Record<string, unknown>, client = api) {
  const response = await client.post('/v0/assets', { assetType: 'image', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expectSchema(Asset, response.body);
  return response.body;
}

async function newAsset(name: string, client = api, extra: Record<string, unknown> = {}) {
  return createAsset({ name, fileId: await uploadFile(client), ...extra }, client);
}

/** Signed links change on every read (their expiry moves); everything else is compared. */
function withoutLinks(asset: Record<string, unknown>) {
  const { downloadUrl: _d, previewDownloadUrl: _p, ...rest } = asset;
  return rest;
}

function fetchLink(url: string) {
  const link = new URL(url);
  return fetch(`${server.url}${link.pathname}${link.search}`);
}

const ids = (list: { items: { assetId: string }[] }) => list.items.map((a) => a.assetId);
const later = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('POST /v0/assets', () => {
  it('creates an image asset with the contract defaults: 201 with Location', async () => {
    const fileId = await uploadFile();
    const response = await api.post('/v0/assets', { assetType: 'image', name: 'Logo', fileId });
    expect(response.status).toBe(201);
    expectSchema(Asset, response.body);
    expect(response.headers.get('location')).toBe(`/v0/assets/${response.body.assetId}`);
    expect(response.body.assetId).toMatch(/^asset_[a-z0-9]{26}$/);
    expect(response.body).toMatchObject({
      tenantId: api.tenantId,
      name: 'Logo',
      purpose: '',
      tags: [],
      aiDescription: null,
      parentAssetId: null,
      hidden: false,
      data: { type: 'image', fileId },
      lifecycleState: 'active',
      trashedAt: null,
      deletedAt: null,
    });
    expect(response.body.createdAt).toMatch(/^\+[1-9]\d{1,14}$/);
    expect(response.body.updatedAt).toBe(response.body.createdAt);
  });

  it('hands out signed links to the file and its preview that need no key', async () => {
    const bytes = png(77);
    const fileId = await uploadFile(api, bytes);
    await server.images.idle();
    const asset = await createAsset({ name: 'Linked', fileId });
    expect(asset.downloadUrl.startsWith('http://127.0.0.1/')).toBe(true);
    const download = await fetchLink(asset.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const preview = await fetchLink(asset.previewDownloadUrl);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('image/webp');
  });

  it('takes purpose, hidden and a parent asset', async () => {
    const parent = await newAsset('Parent');
    const child = await createAsset({
      name: 'Child',
      purpose: 'Hero image',
      hidden: true,
      parentAssetId: parent.assetId,
      fileId: await uploadFile(),
    });
    expect(child).toMatchObject({ purpose: 'Hero image', hidden: true, parentAssetId: parent.assetId });
  });

  it('lets several assets share one file, and stores strings as sent', async () => {
    const fileId = await uploadFile();
    const first = await createAsset({ name: '  spaced  ', purpose: '', fileId });
    const second = await createAsset({ name: '', fileId });
    expect(first.name).toBe('  spaced  ');
    expect(second.name).toBe('');
    expect(second.data.fileId).toBe(first.data.fileId);
  });

  describe('rejects', () => {
    let tenant: Client;
    let fileId: string;
    let foreignFileId: string;
    let foreignAssetId: string;

    beforeAll(async () => {
      tenant = await server.newTenant();
      fileId = await uploadFile(tenant);
      const other = await server.newTenant();
      foreignFileId = await uploadFile(other);
      foreignAssetId = (await newAsset('Theirs', other)).assetId;
    });

    const cases: [
      string,
      (ids: { fileId: string; foreignFileId: string; foreignAssetId: string }) => object,
      string,
    ][] = [
      ['a missing assetType', ({ fileId }) => ({ name: 'x', fileId }), '/body/assetType'],
      ['assetType logo', ({ fileId }) => ({ assetType: 'logo', name: 'x', fileId }), '/body/assetType'],
      [
        'assetType in capitals',
        ({ fileId }) => ({ assetType: 'IMAGE', name: 'x', fileId }),
        '/body/assetType',
      ],
      ['a missing name', ({ fileId }) => ({ assetType: 'image', fileId }), '/body/name'],
      ['a null name', ({ fileId }) => ({ assetType: 'image', name: null, fileId }), '/body/name'],
      ['a numeric name', ({ fileId }) => ({ assetType: 'image', name: 5, fileId }), '/body/name'],
      [
        'a null purpose',
        ({ fileId }) => ({ assetType: 'image', name: 'x', purpose: null, fileId }),
        '/body/purpose',
      ],
      ['a missing fileId', () => ({ assetType: 'image', name: 'x' }), '/body/fileId'],
      [
        'an unknown fileId',
        () => ({ assetType: 'image', name: 'x', fileId: 'file_00000000000000000000000000' }),
        '/body/fileId',
      ],
      ['a malformed fileId', () => ({ assetType: 'image', name: 'x', fileId: 'nope' }), '/body/fileId'],
      [
        "another tenant's file",
        ({ foreignFileId }) => ({ assetType: 'image', name: 'x', fileId: foreignFileId }),
        '/body/fileId',
      ],
      [
        'an unknown parentAssetId',
        ({ fileId }) => ({
          assetType: 'image',
          name: 'x',
          fileId,
          parentAssetId: 'asset_00000000000000000000000000',
        }),
        '/body/parentAssetId',
      ],
      [
        "another tenant's parent asset",
        ({ fileId, foreignAssetId }) => ({
          assetType: 'image',
          name: 'x',
          fileId,
          parentAssetId: foreignAssetId,
        }),
        '/body/parentAssetId',
      ],
      [
        'a null parentAssetId',
        ({ fileId }) => ({ assetType: 'image', name: 'x', fileId, parentAssetId: null }),
        '/body/parentAssetId',
      ],
      [
        'an empty idempotencyKey',
        ({ fileId }) => ({ assetType: 'image', name: 'x', fileId, idempotencyKey: '' }),
        '/body/idempotencyKey',
      ],
      [
        'an idempotencyKey of 256 characters',
        ({ fileId }) => ({ assetType: 'image', name: 'x', fileId, idempotencyKey: 'k'.repeat(256) }),
        '/body/idempotencyKey',
      ],
      [
        'a string for hidden',
        ({ fileId }) => ({ assetType: 'image', name: 'x', fileId, hidden: 'yes' }),
        '/body/hidden',
      ],
      [
        'tags, which are not accepted',
        ({ fileId }) => ({ assetType: 'image', name: 'x', fileId, tags: ['a'] }),
        '/body/tags',
      ],
      [
        'an unknown field',
        ({ fileId }) => ({ assetType: 'image', name: 'x', fileId, color: 'red' }),
        '/body/color',
      ],
    ];

    it.each(cases)(
      '%s with 400 validation_failed naming the field, and creates nothing',
      async (_label, body, path) => {
        const response = await tenant.post('/v0/assets', body({ fileId, foreignFileId, foreignAssetId }));
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('validation_failed');
        expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
        for (const state of ['active', 'trashed', 'deleted']) {
          expect((await tenant.get(`/v0/assets?lifecycleState=${state}`)).body.totalCount).toBe(0);
        }
      },
    );

    it('a body that is not JSON with 415', async () => {
      const response = await tenant.request('POST', '/v0/assets', {
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.status).toBe(415);
    });

    it('accepts an idempotencyKey of 1 and of 255 characters', async () => {
      for (const idempotencyKey of ['k', 'k'.repeat(255)]) {
        expect(
          (await tenant.post('/v0/assets', { assetType: 'image', name: 'x', fileId, idempotencyKey })).status,
        ).toBe(201);
      }
    });
  });
});

describe('idempotencyKey', () => {
  it('replays the first response to a retry with the same body, creating one asset', async () => {
    const tenant = await server.newTenant();
    const body = {
      assetType: 'image',
      name: 'Once',
      fileId: await uploadFile(tenant),
      idempotencyKey: 'asset-once',
    };
    const first = await tenant.post('/v0/assets', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await tenant.post('/v0/assets', { ...body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect((await tenant.get('/v0/assets')).body.totalCount).toBe(1);
  });

  it('422 idempotency_key_reused for the same key with another body, which creates nothing', async () => {
    const tenant = await server.newTenant();
    const fileId = await uploadFile(tenant);
    await tenant.post('/v0/assets', { assetType: 'image', name: 'First', fileId, idempotencyKey: 'reused' });
    const response = await tenant.post('/v0/assets', {
      assetType: 'image',
      name: 'Second',
      fileId,
      idempotencyKey: 'reused',
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('idempotency_key_reused');
    expect((await tenant.get('/v0/assets')).body.items.map((a: { name: string }) => a.name)).toEqual([
      'First',
    ]);
  });

  it('concurrent first uses of a key create exactly one asset', async () => {
    const tenant = await server.newTenant();
    const body = {
      assetType: 'image',
      name: 'Racing',
      fileId: await uploadFile(tenant),
      idempotencyKey: 'race',
    };
    const responses = await Promise.all(Array.from({ length: 8 }, () => tenant.post('/v0/assets', body)));
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const response of responses) expect([201, 409]).toContain(response.status);
    expect(new Set(created.map((r) => r.body.assetId)).size).toBe(1);
    expect((await tenant.get('/v0/assets')).body.totalCount).toBe(1);
  });

  it('keys are per tenant', async () => {
    const [one, two] = [await server.newTenant(), await server.newTenant()];
    const first = await one.post('/v0/assets', {
      assetType: 'image',
      name: 'A',
      fileId: await uploadFile(one),
      idempotencyKey: 'shared',
    });
    const second = await two.post('/v0/assets', {
      assetType: 'image',
      name: 'A',
      fileId: await uploadFile(two),
      idempotencyKey: 'shared',
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.assetId).not.toBe(first.body.assetId);
  });

  it('a request without a key is never replayed', async () => {
    const tenant = await server.newTenant();
    const body = { assetType: 'image', name: 'Twice', fileId: await uploadFile(tenant) };
    await tenant.post('/v0/assets', body);
    await tenant.post('/v0/assets', body);
    expect((await tenant.get('/v0/assets')).body.totalCount).toBe(2);
  });
});

describe('GET /v0/assets/{id}', () => {
  it('returns the asset', async () => {
    const asset = await newAsset('Readable');
    const response = await api.get(`/v0/assets/${asset.assetId}`);
    expect(response.status).toBe(200);
    expectSchema(Asset, response.body);
    expect(withoutLinks(response.body)).toEqual(withoutLinks(asset));
  });

  it('is 404 for an unknown, malformed or foreign id', async () => {
    const foreign = await newAsset('Foreign', await server.newTenant());
    for (const id of ['asset_00000000000000000000000000', 'x', foreign.assetId]) {
      const response = await api.get(`/v0/assets/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
  });

  it('needs an API key', async () => {
    const asset = await newAsset('Keyed');
    expect((await server.anonymous().get(`/v0/assets/${asset.assetId}`)).status).toBe(401);
  });
});

describe('trash and restore', () => {
  it('DELETE moves an active asset to the trash', async () => {
    const asset = await newAsset('To trash');
    await later();
    const response = await api.delete(`/v0/assets/${asset.assetId}`);
    expect(response.status).toBe(200);
    expectSchema(Asset, response.body);
    expect(response.body).toMatchObject({
      lifecycleState: 'trashed',
      deletedAt: null,
      createdAt: asset.createdAt,
    });
    expect(response.body.trashedAt).toMatch(/^\+[1-9]\d{1,14}$/);
    expect(response.body.updatedAt).toBe(response.body.trashedAt);
    expect(response.body.updatedAt).not.toBe(asset.updatedAt);
    // A trashed asset keeps its links until it is deleted.
    expect((await fetchLink(response.body.downloadUrl)).status).toBe(200);
    expect((await api.get(`/v0/assets/${asset.assetId}`)).body.lifecycleState).toBe('trashed');
  });

  it('DELETE of a trashed asset returns it unchanged, timestamps kept', async () => {
    const asset = await newAsset('Trash twice');
    const first = (await api.delete(`/v0/assets/${asset.assetId}`)).body;
    await later();
    const again = await api.delete(`/v0/assets/${asset.assetId}`);
    expect(again.status).toBe(200);
    expect(withoutLinks(again.body)).toEqual(withoutLinks(first));
  });

  it('restore brings a trashed asset back', async () => {
    const asset = await newAsset('To restore');
    const trashed = (await api.delete(`/v0/assets/${asset.assetId}`)).body;
    await later();
    const response = await api.post(`/v0/assets/${asset.assetId}/restore`, {});
    expect(response.status).toBe(200);
    expectSchema(Asset, response.body);
    expect(response.body).toMatchObject({ lifecycleState: 'active', trashedAt: null, deletedAt: null });
    expect(response.body.updatedAt).not.toBe(trashed.updatedAt);
  });

  it('restore of an active asset returns it unchanged, with or without a body', async () => {
    const asset = await newAsset('Already active');
    await later();
    for (const response of [
      await api.post(`/v0/assets/${asset.assetId}/restore`, {}),
      await api.request('POST', `/v0/assets/${asset.assetId}/restore`),
    ]) {
      expect(response.status).toBe(200);
      expect(withoutLinks(response.body)).toEqual(withoutLinks(asset));
    }
  });

  it('restore rejects a body with fields', async () => {
    const asset = await newAsset('Strict restore');
    const response = await api.post(`/v0/assets/${asset.assetId}/restore`, { lifecycleState: 'active' });
    expect(response.status).toBe(400);
  });

  it("is 404 for another tenant's asset, which stays as it was", async () => {
    const other = await server.newTenant();
    const theirs = await newAsset('Theirs', other);
    expect((await api.delete(`/v0/assets/${theirs.assetId}`)).status).toBe(404);
    await other.delete(`/v0/assets/${theirs.assetId}`);
    expect((await api.post(`/v0/assets/${theirs.assetId}/restore`, {})).status).toBe(404);
    expect((await other.get(`/v0/assets/${theirs.assetId}`)).body.lifecycleState).toBe('trashed');
  });

  it('is 404 for an unknown id', async () => {
    expect((await api.delete('/v0/assets/asset_00000000000000000000000000')).status).toBe(404);
    expect((await api.post('/v0/assets/asset_00000000000000000000000000/restore', {})).status).toBe(404);
  });
});

describe('GET /v0/assets', () => {
  let tenant: Client;
  let created: { assetId: string }[];

  beforeAll(async () => {
    tenant = await server.newTenant();
    created = [];
    for (const name of ['One', 'Two', 'Three', 'Four', 'Five']) created.push(await newAsset(name, tenant));
    await tenant.delete(`/v0/assets/${created[1]?.assetId}`);
  });

  it('lists active assets, newest first, with an exact count', async () => {
    const response = await tenant.get('/v0/assets');
    expect(response.status).toBe(200);
    expectSchema(AssetList, response.body);
    expect(ids(response.body)).toEqual([4, 3, 2, 0].map((i) => created[i]?.assetId));
    expect(response.body).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 4 });
  });

  it('lists another state on request', async () => {
    const trashed = (await tenant.get('/v0/assets?lifecycleState=trashed')).body;
    expect(ids(trashed)).toEqual([created[1]?.assetId]);
    expect((await tenant.get('/v0/assets?lifecycleState=deleted')).body.totalCount).toBe(0);
  });

  it('pages through with cursors, no item skipped or repeated', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = (await tenant.get(`/v0/assets?limit=3${query}`)).body;
      expectSchema(AssetList, page);
      expect(page.totalCount).toBe(4);
      seen.push(...ids(page));
      cursor = page.nextCursor;
      expect(cursor !== null).toBe(page.hasMore);
    } while (cursor);
    expect(seen).toEqual([4, 3, 2, 0].map((i) => created[i]?.assetId));
  });

  it('filters by query and assetType', async () => {
    expect(ids((await tenant.get('/v0/assets?query=THRE')).body)).toEqual([created[2]?.assetId]);
    expect((await tenant.get('/v0/assets?assetType=image')).body.totalCount).toBe(4);
    expect((await tenant.get('/v0/assets?assetType=video')).body.totalCount).toBe(0);
  });

  it.each([
    ['lifecycleState=gone', '/querystring/lifecycleState'],
    ['assetType=photo', '/querystring/assetType'],
    ['limit=0', '/querystring/limit'],
    ['limit=101', '/querystring/limit'],
    [`query=${'q'.repeat(201)}`, '/querystring/query'],
  ])('rejects %s with 400', async (query, path) => {
    const response = await tenant.get(`/v0/assets?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('shows nothing of another tenant', async () => {
    expect((await (await server.newTenant()).get('/v0/assets')).body.totalCount).toBe(0);
  });
});

describe('GET /v0/assets/trash', () => {
  let tenant: Client;
  const byName: Record<string, string> = {};

  /** Trash order: Gamma, then Alpha, Delta, Beta (most recent first: Beta, Delta, Alpha, Gamma). */
  beforeAll(async () => {
    tenant = await server.newTenant();
    const specs: [string, string][] = [
      ['Alpha Banner', 'Homepage hero'],
      ['Beta logo', 'footer'],
      ['Gamma', 'Summer CAMPAIGN'],
      ['Delta icon', ''],
      ['Epsilon', 'stays active'],
    ];
    for (const [name, purpose] of specs) byName[name] = (await newAsset(name, tenant, { purpose })).assetId;
    for (const name of ['Gamma', 'Alpha Banner', 'Delta icon', 'Beta logo']) {
      await tenant.delete(`/v0/assets/${byName[name]}`);
      await later();
    }
  });

  const names = (list: { items: { name: string }[] }) => list.items.map((a) => a.name);

  it('lists only trashed assets, most recently trashed first, with an exact count', async () => {
    const response = await tenant.get('/v0/assets/trash');
    expect(response.status).toBe(200);
    expectSchema(TrashList, response.body);
    expect(names(response.body)).toEqual(['Beta logo', 'Delta icon', 'Alpha Banner', 'Gamma']);
    expect(response.body).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 4 });
    for (const item of response.body.items) expect(item.lifecycleState).toBe('trashed');
  });

  it('orders by when each asset was trashed, not when it was created', async () => {
    const other = await server.newTenant();
    const older = await newAsset('Older', other);
    const newer = await newAsset('Newer', other);
    await other.delete(`/v0/assets/${newer.assetId}`);
    await later();
    await other.delete(`/v0/assets/${older.assetId}`);
    expect(ids((await other.get('/v0/assets/trash')).body)).toEqual([older.assetId, newer.assetId]);
    // Restored and trashed again: it moves to the front.
    await other.post(`/v0/assets/${newer.assetId}/restore`, {});
    await later();
    await other.delete(`/v0/assets/${newer.assetId}`);
    expect(ids((await other.get('/v0/assets/trash')).body)).toEqual([newer.assetId, older.assetId]);
  });

  it('pages through with cursors of at least one character, none skipped or repeated', async () => {
    const first = (await tenant.get('/v0/assets/trash?limit=3')).body;
    expectSchema(TrashList, first);
    expect(first).toMatchObject({ hasMore: true, totalCount: 4 });
    expect(first.nextCursor.length).toBeGreaterThanOrEqual(1);
    const second = (
      await tenant.get(`/v0/assets/trash?limit=3&cursor=${encodeURIComponent(first.nextCursor)}`)
    ).body;
    expectSchema(TrashList, second);
    expect(second).toMatchObject({ hasMore: false, nextCursor: null, totalCount: 4 });
    expect([...names(first), ...names(second)]).toEqual(['Beta logo', 'Delta icon', 'Alpha Banner', 'Gamma']);
  });

  it('keeps its place when assets are trashed between pages', async () => {
    const first = (await tenant.get('/v0/assets/trash?limit=2')).body;
    const extra = await newAsset('Late arrival', tenant);
    await tenant.delete(`/v0/assets/${extra.assetId}`);
    const rest = (
      await tenant.get(`/v0/assets/trash?limit=10&cursor=${encodeURIComponent(first.nextCursor)}`)
    ).body;
    expect([...names(first), ...names(rest)]).toEqual(['Beta logo', 'Delta icon', 'Alpha Banner', 'Gamma']);
    await tenant.post(`/v0/assets/${extra.assetId}/restore`, {});
  });

  it('matches query case-insensitively as a substring of name, purpose or tags', async () => {
    const search = async (query: string) =>
      names((await tenant.get(`/v0/assets/trash?query=${encodeURIComponent(query)}`)).body);
    expect(await search('BANNER')).toEqual(['Alpha Banner']);
    expect(await search('campaign')).toEqual(['Gamma']);
    expect(await search('N')).toEqual(['Delta icon', 'Alpha Banner', 'Gamma']);
    expect(await search('ta')).toEqual(['Beta logo', 'Delta icon']);
    expect(await search('active')).toEqual([]);
    expect(await search('%')).toEqual([]);
    expect(await search('')).toHaveLength(4);
    // Tags are set by the service only (no endpoint writes them yet); they are searched too.
    await anyTables(server.database)
      .updateTable('assets')
      .set({ tags: JSON.stringify(['brand-kit', 'q3']), tags_text: 'brand-kit\nq3' })
      .where('id', '=', byName.Gamma as string)
      .execute();
    expect(await search('BRAND-K')).toEqual(['Gamma']);
    expect(await search('Q3')).toEqual(['Gamma']);
    // The JSON the tags are kept in is not what is searched.
    expect(await search('","')).toEqual([]);
    expect(await search('["brand')).toEqual([]);
    const gamma = (await tenant.get(`/v0/assets/${byName.Gamma}`)).body;
    expect(gamma.tags).toEqual(['brand-kit', 'q3']);
  });

  it('counts the matches of a query in totalCount', async () => {
    const response = (await tenant.get('/v0/assets/trash?query=ta&limit=1')).body;
    expect(response).toMatchObject({ totalCount: 2, hasMore: true });
    expect(response.items).toHaveLength(1);
  });

  it('filters on data.type with assetType', async () => {
    expect((await tenant.get('/v0/assets/trash?assetType=image')).body.totalCount).toBe(4);
    for (const kind of ['logo', 'icon', 'video', 'custom-component']) {
      const response = await tenant.get(`/v0/assets/trash?assetType=${kind}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ items: [], totalCount: 0, hasMore: false, nextCursor: null });
    }
  });

  it('refuses a cursor that was altered, made for other filters, another list or another tenant', async () => {
    const page = (await tenant.get('/v0/assets/trash?limit=1')).body;
    const cursor = page.nextCursor as string;
    const otherTenant = await server.newTenant();
    const attempts = [
      tenant.get(`/v0/assets/trash?limit=1&cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`),
      tenant.get(`/v0/assets/trash?limit=1&query=ta&cursor=${encodeURIComponent(cursor)}`),
      tenant.get(`/v0/assets/trash?limit=1&assetType=image&cursor=${encodeURIComponent(cursor)}`),
      tenant.get(`/v0/assets?lifecycleState=trashed&limit=1&cursor=${encodeURIComponent(cursor)}`),
      otherTenant.get(`/v0/assets/trash?limit=1&cursor=${encodeURIComponent(cursor)}`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_cursor');
    }
  });

  it.each([
    ['assetType=photo', '/querystring/assetType'],
    ['assetType=Image', '/querystring/assetType'],
    ['limit=0', '/querystring/limit'],
    ['limit=101', '/querystring/limit'],
    ['limit=1.5', '/querystring/limit'],
    [`query=${'q'.repeat(201)}`, '/querystring/query'],
  ])('rejects %s with 400', async (query, path) => {
    const response = await tenant.get(`/v0/assets/trash?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('shows nothing of another tenant, and needs a key', async () => {
    const other = await server.newTenant();
    expect((await other.get('/v0/assets/trash?query=banner')).body.totalCount).toBe(0);
    expect((await server.anonymous().get('/v0/assets/trash')).status).toBe(401);
  });
});

describe('substring search index', () => {
  /** The database's plan for a search of assets, with sequential scans discouraged on PostgreSQL. */
  async function planOf(query: string): Promise<string> {
    const { search } = server.database;
    const db = anyTables(server.database);
    const where = search.substringMatch('assets', ['name', 'purpose', 'tags_text'], query);
    const compiled = db.selectFrom('assets').select('id').where(where).compile();
    return db.transaction().execute(async (trx) => {
      // A small test table is cheaper to scan; the question here is whether the index can serve.
      if (onPostgres) await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const explain = onPostgres ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
      const result = await trx.executeQuery({ ...compiled, sql: explain + compiled.sql });
      return JSON.stringify(result.rows);
    });
  }

  it('serves query on name, purpose and tags from the trigram index, not a scan', async () => {
    const plan = await planOf('banner');
    if (onPostgres) {
      expect(plan).toContain('assets_search_content');
      expect(plan).not.toContain('Seq Scan');
    } else {
      expect(plan).toContain('VIRTUAL TABLE INDEX');
      expect(plan).not.toMatch(/SCAN assets\b(?!_search)/);
    }
  });
});

// Runs last in this file: the purge sweeps every tenant of the shared database.
/** The purge as a node runs it, on this server's file storage. */
const purgeTrashedAssets = () => assetPurge(server.storage);

describe('purgeTrashedAssets', () => {
  let tenant: Client;
  let own: { assetId: string; data: { fileId: string }; downloadUrl: string };
  let sharing: { assetId: string };
  let keeper: { assetId: string; downloadUrl: string };
  let restored: { assetId: string };
  let recent: { assetId: string };

  beforeAll(async () => {
    tenant = await server.newTenant();
    own = await newAsset('Own file', tenant);
    const sharedFile = await uploadFile(tenant);
    sharing = await createAsset({ name: 'Shares a file', fileId: sharedFile }, tenant);
    keeper = await createAsset({ name: 'Keeps the file', fileId: sharedFile }, tenant);
    restored = await newAsset('Restored in time', tenant);
    for (const asset of [own, sharing, restored]) await tenant.delete(`/v0/assets/${asset.assetId}`);
    await tenant.post(`/v0/assets/${restored.assetId}/restore`, {});
  });

  it('is a scheduled task with a stable name', () => {
    expect(purgeTrashedAssets().name).toBe('assets.purge');
    expect(purgeTrashedAssets().everyMs).toBeGreaterThan(0);
  });

  it('leaves assets trashed for less than 30 days alone', async () => {
    await purgeTrashedAssets().run(server.jobContext(Date.now() + 29 * DAY));
    expect((await tenant.get(`/v0/assets/${own.assetId}`)).body.lifecycleState).toBe('trashed');
    expect((await fetchLink(own.downloadUrl)).status).toBe(200);
  });

  it('deletes assets 30 days after they were trashed, with their URLs', async () => {
    const now = Date.now() + 31 * DAY;
    await purgeTrashedAssets().run(server.jobContext(now));
    for (const asset of [own, sharing]) {
      const response = await tenant.get(`/v0/assets/${asset.assetId}`);
      expect(response.status).toBe(200);
      expectSchema(Asset, response.body);
      expect(response.body).toMatchObject({
        lifecycleState: 'deleted',
        deletedAt: `+${now}`,
        downloadUrl: null,
        previewDownloadUrl: null,
      });
    }
    expect((await tenant.get(`/v0/assets/${restored.assetId}`)).body.lifecycleState).toBe('active');
    expect((await tenant.get(`/v0/assets/${keeper.assetId}`)).body.lifecycleState).toBe('active');
    expect((await tenant.get('/v0/assets/trash')).body.totalCount).toBe(0);
    expect(ids((await tenant.get('/v0/assets?lifecycleState=deleted')).body)).toEqual([
      sharing.assetId,
      own.assetId,
    ]);
  });

  it("removes a file's bytes when no other asset uses it", async () => {
    expect((await fetchLink(own.downloadUrl)).status).toBe(404);
    expect(
      await server.storage.get(storageKey(tenant.tenantId, own.data.fileId, 'original')),
    ).toBeUndefined();
    expect(await server.storage.get(storageKey(tenant.tenantId, own.data.fileId, 'preview'))).toBeUndefined();
    const file = (await tenant.get(`/v0/files/${own.data.fileId}`)).body;
    expect(file).toMatchObject({ downloadUrl: null, previewDownloadUrl: null });
    expect(file.deletedAt).toMatch(/^\+[1-9]\d{1,14}$/);
  });

  it('keeps the bytes of a file that an asset that is not deleted still uses', async () => {
    expect((await fetchLink(keeper.downloadUrl)).status).toBe(200);
    expect((await tenant.get(`/v0/assets/${keeper.assetId}`)).body.downloadUrl).not.toBeNull();
  });

  it('a deleted asset can be neither trashed nor restored: 409 invalid_state naming the state', async () => {
    for (const response of [
      await tenant.delete(`/v0/assets/${own.assetId}`),
      await tenant.post(`/v0/assets/${own.assetId}/restore`, {}),
    ]) {
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('invalid_state');
      expect(response.body.detail).toContain('deleted');
    }
    expect((await tenant.get(`/v0/assets/${own.assetId}`)).body.lifecycleState).toBe('deleted');
  });

  it('a deleted file or a deleted parent cannot be used by a new asset', async () => {
    const withFile = await tenant.post('/v0/assets', {
      assetType: 'image',
      name: 'x',
      fileId: own.data.fileId,
    });
    expect(withFile.status).toBe(400);
    expect(withFile.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/fileId']);
    const withParent = await tenant.post('/v0/assets', {
      assetType: 'image',
      name: 'x',
      fileId: await uploadFile(tenant),
      parentAssetId: own.assetId,
    });
    expect(withParent.status).toBe(400);
    expect(withParent.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/parentAssetId']);
  });

  it('is safe to run again', async () => {
    const before = (await tenant.get(`/v0/assets/${own.assetId}`)).body;
    await purgeTrashedAssets().run(server.jobContext(Date.now() + 62 * DAY));
    expect((await tenant.get(`/v0/assets/${own.assetId}`)).body).toEqual(before);
    expect((await fetchLink(keeper.downloadUrl)).status).toBe(200);
  });

  it('takes back a file given up while a new asset took it up, keeping its bytes', async () => {
    recent = await newAsset('Took the file up', tenant);
    const fileId = (await tenant.get(`/v0/assets/${recent.assetId}`)).body.data.fileId;
    // As if the purge gave the file up just before this asset's transaction committed.
    await giveUp(anyTables(server.database), tenant.tenantId, fileId, Date.now());
    expect((await tenant.get(`/v0/files/${fileId}`)).body.downloadUrl).toBeNull();
    await purgeTrashedAssets().run(server.jobContext(Date.now()));
    const file = (await tenant.get(`/v0/files/${fileId}`)).body;
    expect(file.deletedAt).toBeNull();
    expect((await fetchLink(file.downloadUrl)).status).toBe(200);
  });
});
