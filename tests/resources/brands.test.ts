import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Brand, BrandList } from '../../src/resources/brands/schema.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { uploadImage } from '../helpers/images.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';
import { ABSOLUTE_URLS, NOT_ABSOLUTE, SCRIPT_URLS } from '../helpers/urls.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

let counter = 0;
const brandId = () => `brand.${++counter}_x-${Date.now()}`;

async function imageAsset(client = api): Promise<string> {
  const fileId = await uploadImage(client);
  const asset = await client.post('/v0/assets', { assetType: 'image', name: 'Logo', fileId });
  expect(asset.status).toBe(201);
  return asset.body.assetId;
}

const FULL = {
  name: 'Acme',
  website: 'https://acme.example',
  colors: { primary: '#1E40AF', accent: '#f59e0b' },
  voice: 'Warm and direct. Avoid: synergy.',
  footerText: 'Acme Ltd, 1 Road, Town',
};

describe('PUT /v0/brands/{brand_id}', () => {
  it('creates a profile: 201 with Location, every field, colours lowercased', async () => {
    const id = brandId();
    const logoAssetId = await imageAsset();
    const response = await api.request('PUT', `/v0/brands/${id}`, { body: { ...FULL, logoAssetId } });
    expect(response.status).toBe(201);
    expectSchema(Brand, response.body);
    expect(response.headers.get('location')).toBe(`/v0/brands/${id}`);
    expect(response.body).toMatchObject({
      brandId: id,
      name: 'Acme',
      website: 'https://acme.example',
      logoAssetId,
      colors: { primary: '#1e40af', accent: '#f59e0b' },
      voice: FULL.voice,
      footerText: FULL.footerText,
    });
    expect(response.body.createdAt).toBe(response.body.updatedAt);
    expect((await api.get(`/v0/brands/${id}`)).body).toEqual(response.body);
  });

  it('replaces a profile whole: 200, a field left out is cleared, updatedAt moves', async () => {
    const id = brandId();
    const created = (await api.request('PUT', `/v0/brands/${id}`, { body: FULL })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const replaced = await api.request('PUT', `/v0/brands/${id}`, { body: { name: 'Acme 2' } });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('location')).toBeNull();
    expect(replaced.body).toMatchObject({
      brandId: id,
      name: 'Acme 2',
      website: null,
      logoAssetId: null,
      colors: { primary: null, accent: null },
      voice: null,
      footerText: null,
      createdAt: created.createdAt,
    });
    expect(Number(replaced.body.updatedAt.slice(1))).toBeGreaterThan(Number(created.updatedAt.slice(1)));
  });

  it('replacing a profile with the same one changes nothing, updatedAt included', async () => {
    const id = brandId();
    const created = (await api.request('PUT', `/v0/brands/${id}`, { body: FULL })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await api.request('PUT', `/v0/brands/${id}`, { body: FULL });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created);
  });

  it.each([
    ['over 64 characters', 'x'.repeat(65)],
    ['with a space', 'a%20b'],
    ['with a slash', 'a%2Fb'],
    ['of two dots', '%2E%2E'],
  ])('answers a brand id %s 404 not_found (it names nothing) and makes nothing', async (_label, id) => {
    const client = await server.newTenant();
    const response = await client.request('PUT', `/v0/brands/${id}`, { body: { name: 'A' } });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
    expect((await client.get('/v0/brands')).body.totalCount).toBe(0);
  });

  it.each([
    ['no name', 'ok', {}],
    ['an empty name', 'ok', { name: '' }],
    ['a name over 255 characters', 'ok', { name: 'n'.repeat(256) }],
    ['a website that is not http(s)', 'ok', { name: 'A', website: 'ftp://acme.example' }],
    ['a relative website', 'ok', { name: 'A', website: '/about' }],
    ['a colour that is not #rrggbb', 'ok', { name: 'A', colors: { primary: 'blue' } }],
    ['a short colour', 'ok', { name: 'A', colors: { accent: '#fff' } }],
    ['an unknown colour', 'ok', { name: 'A', colors: { tertiary: '#ffffff' } }],
    ['a voice over 2,000 characters', 'ok', { name: 'A', voice: 'v'.repeat(2001) }],
    ['a footer text over 500 characters', 'ok', { name: 'A', footerText: 'f'.repeat(501) }],
    ['an unknown field', 'ok', { name: 'A', slogan: 'Go' }],
    ['a null name', 'ok', { name: null }],
  ])('rejects %s with 400 and makes nothing', async (_label, id, body) => {
    const client = await server.newTenant();
    const response = await client.request('PUT', `/v0/brands/${id}`, { body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect((await client.get('/v0/brands')).body.totalCount).toBe(0);
  });

  it('refuses a logo that is not an active image asset of the tenant, at /body/logoAssetId', async () => {
    const trashed = await imageAsset();
    await api.delete(`/v0/assets/${trashed}`);
    const foreign = await imageAsset(await server.newTenant());
    for (const logoAssetId of ['asset_00000000000000000000000000', trashed, foreign]) {
      const id = brandId();
      const response = await api.request('PUT', `/v0/brands/${id}`, { body: { name: 'A', logoAssetId } });
      expect(response.status, logoAssetId).toBe(400);
      expect(response.body.errors[0].path).toBe('/body/logoAssetId');
      expect((await api.get(`/v0/brands/${id}`)).status).toBe(404);
    }
  });

  it('is 403 for a read-only key', async () => {
    const { apiKey } = await import('../../src/resources/api-keys/service.ts').then(({ issueKey }) =>
      issueKey(anyTables(server.database), api.tenantId, { readOnly: true }),
    );
    const response = await api.as(apiKey).request('PUT', `/v0/brands/${brandId()}`, { body: FULL });
    expect(response.status).toBe(403);
  });
});

describe('GET, list and DELETE', () => {
  it('lists profiles newest first, a page at a time', async () => {
    const client = await server.newTenant();
    const ids = ['one', 'two', 'three'];
    for (const id of ids) await client.request('PUT', `/v0/brands/${id}`, { body: { name: id } });
    const first = await client.get('/v0/brands?limit=2');
    expect(first.status).toBe(200);
    expectSchema(BrandList, first.body);
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 3 });
    expect(first.body.items.map((brand: { brandId: string }) => brand.brandId)).toEqual(['three', 'two']);
    const second = await client.get(`/v0/brands?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((brand: { brandId: string }) => brand.brandId)).toEqual(['one']);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('deletes a profile; pages keep their brandId; deleting again is 404', async () => {
    const id = brandId();
    await api.request('PUT', `/v0/brands/${id}`, { body: FULL });
    const page = await api.post('/v0/pages', {
      name: 'Branded',
      pageContext: 'C',
      brandId: id,
      actions: [],
      actionCardWidgets: [],
      scripts: [],
    });
    const deleted = await api.delete(`/v0/brands/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ brandId: id, deleted: true });
    expect((await api.get(`/v0/brands/${id}`)).status).toBe(404);
    expect((await api.delete(`/v0/brands/${id}`)).status).toBe(404);
    expect((await api.get(`/v0/pages/${page.body.pageId}`)).body.brandId).toBe(id);
  });

  it("keeps tenants apart: another tenant's brand is 404 to read, replace or delete, and not listed", async () => {
    const id = brandId();
    await api.request('PUT', `/v0/brands/${id}`, { body: FULL });
    const other = await server.newTenant();
    expect((await other.get(`/v0/brands/${id}`)).status).toBe(404);
    expect((await other.delete(`/v0/brands/${id}`)).status).toBe(404);
    expect((await other.get('/v0/brands')).body.totalCount).toBe(0);
    // The same brand id is the other tenant's own to name.
    expect((await other.request('PUT', `/v0/brands/${id}`, { body: { name: 'Theirs' } })).status).toBe(201);
    expect((await api.get(`/v0/brands/${id}`)).body.name).toBe('Acme');
  });

  it('is 404 for an unknown or malformed brand id', async () => {
    for (const id of ['never-made', 'a%20b', 'x'.repeat(70)]) {
      expect((await api.get(`/v0/brands/${id}`)).status, id).toBe(404);
    }
  });
});

describe('website takes absolute http(s) URLs only (issue 21 finding 11)', () => {
  it.each([...SCRIPT_URLS, ...NOT_ABSOLUTE])(
    'refuses %j at /body/website, neither making nor replacing a profile',
    async (website) => {
      const id = brandId();
      const made = await api.request('PUT', `/v0/brands/${id}`, { body: { name: 'Hostile', website } });
      expect(made.status).toBe(400);
      expect(made.body.code).toBe('validation_failed');
      expect(made.body.errors.map((e: { path: string }) => e.path)).toEqual(['/body/website']);
      expect((await api.get(`/v0/brands/${id}`)).status).toBe(404);

      const kept = (await api.request('PUT', `/v0/brands/${id}`, { body: FULL })).body;
      const replaced = await api.request('PUT', `/v0/brands/${id}`, { body: { ...FULL, website } });
      expect(replaced.status).toBe(400);
      expect((await api.get(`/v0/brands/${id}`)).body).toEqual(kept);
    },
  );

  it.each(ABSOLUTE_URLS)('accepts %j', async (website) => {
    const response = await api.request('PUT', `/v0/brands/${brandId()}`, { body: { name: 'A', website } });
    expect(response.status).toBe(201);
    expect(response.body.website).toBe(website);
  });
});
