import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  for (let i = 0; i < 25; i++)
    await api.post('/v0/accounts', { domain: `page-${i}.example`, name: `Page ${i}` });
});
afterAll(() => server.close());

async function walk(client: Client, url: string, limit: number, between?: (page: number) => Promise<void>) {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const separator = url.includes('?') ? '&' : '?';
    const response: { status: number; body: any } = await client.get(
      `${url}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(response.status).toBe(200);
    expect(response.body.nextCursor === null).toBe(!response.body.hasMore);
    seen.push(...response.body.items.map((item: { accountId: string }) => item.accountId));
    cursor = response.body.nextCursor;
    if (!cursor) break;
    await between?.(page);
  }
  return seen;
}

describe('keyset pagination', () => {
  it('defaults to 20 items', async () => {
    const response = await api.get('/v0/accounts/search');
    expect(response.body.items).toHaveLength(20);
    expect(response.body).toMatchObject({ hasMore: true, totalCount: 25 });
    expect(typeof response.body.nextCursor).toBe('string');
  });

  it('walks every item once, in order', async () => {
    const all = (await api.get('/v0/accounts/search?limit=100')).body.items.map(
      (a: { accountId: string }) => a.accountId,
    );
    expect(await walk(api, '/v0/accounts/search', 7)).toEqual(all);
  });

  it('skips and repeats nothing while items are inserted between pages', async () => {
    const tenant = await server.newTenant();
    for (let i = 0; i < 10; i++) await tenant.post('/v0/accounts', { domain: `live-${i}.example` });
    const before = (await tenant.get('/v0/accounts/search?limit=100')).body.items.map(
      (a: { accountId: string }) => a.accountId,
    );
    const seen = await walk(tenant, '/v0/accounts/search', 3, async (page) => {
      await tenant.post('/v0/accounts', { domain: `inserted-${page}.example` });
    });
    expect(seen).toEqual(before);
  });

  it('keeps the filters: a cursor walks the filtered list', async () => {
    const seen = await walk(api, '/v0/accounts/search?query=page-1', 2);
    expect(seen).toHaveLength(11);
    expect(new Set(seen).size).toBe(11);
  });

  it('refuses a tampered cursor', async () => {
    const cursor: string = (await api.get('/v0/accounts/search?limit=5')).body.nextCursor;
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['account_zzzzzzzzzzzzzzzzzzzzzzzzzz'])).toString('base64url');
    for (const bad of [
      `${forged}.${signature}`,
      `${payload}.${signature?.slice(1)}x`,
      'garbage',
      `${payload}`,
    ]) {
      const response = await api.get(`/v0/accounts/search?cursor=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_cursor');
    }
  });

  it('refuses a cursor made under other filters', async () => {
    const cursor = (await api.get('/v0/accounts/search?limit=5')).body.nextCursor;
    const response = await api.get(`/v0/accounts/search?query=page&cursor=${cursor}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_cursor');
  });

  it('refuses a cursor of another tenant', async () => {
    const cursor = (await api.get('/v0/accounts/search?limit=5')).body.nextCursor;
    const other = await server.newTenant();
    const response = await other.get(`/v0/accounts/search?cursor=${cursor}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_cursor');
  });

  it('refuses a cursor of another endpoint', async () => {
    for (let i = 0; i < 3; i++) await api.post('/v0/persons', { name: `P${i}` });
    const cursor = (await api.get('/v0/persons?limit=1')).body.nextCursor;
    const response = await api.get(`/v0/accounts/search?cursor=${cursor}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_cursor');
  });

  it('answers an empty last page consistently', async () => {
    const tenant = await server.newTenant();
    const response = await tenant.get('/v0/accounts/search');
    expect(response.body).toEqual({ hasMore: false, items: [], nextCursor: null, totalCount: 0 });
  });
});
