import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revoke } from '../../src/resources/api-keys/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

describe('API keys', () => {
  it('401 missing_api_key without a key, with WWW-Authenticate', async () => {
    const response = await server.anonymous().get('/v0/persons');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('missing_api_key');
    expect(response.headers.get('www-authenticate')).toBe('ApiKey header="x-api-key"');
  });

  it('401 invalid_api_key for an unknown key', async () => {
    const response = await api.as('tlr_unknownunknownunknownunknownunknownabcd').get('/v0/persons');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_api_key');
    expect(response.headers.get('www-authenticate')).toBe('ApiKey header="x-api-key"');
  });

  it('keys look like tlr_ and 40 base62 characters', () => {
    expect(api.apiKey).toMatch(/^tlr_[0-9A-Za-z]{40}$/);
  });

  it('stores only a hash and a short prefix', async () => {
    const rows = await anyTables(server.database)
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', api.tenantId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key_hash).not.toContain(api.apiKey);
    expect(rows[0]?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(api.apiKey?.startsWith(rows[0]?.display_prefix ?? '-')).toBe(true);
    expect(rows[0]?.display_prefix.length).toBeLessThan(16);
  });

  it('a revoked key is refused on the next request', async () => {
    const key = await issueKey(anyTables(server.database), api.tenantId);
    const client = api.as(key.apiKey);
    expect((await client.get('/v0/persons')).status).toBe(200);
    await revoke(anyTables(server.database), key.keyId);
    const response = await client.get('/v0/persons');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_api_key');
  });

  it('a read-only key may GET but nothing else (403 forbidden, nothing changed)', async () => {
    const key = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const reader = api.as(key.apiKey);
    expect((await reader.get('/v0/persons')).status).toBe(200);
    const before = (await api.get('/v0/persons')).body.totalCount;
    const post = await reader.post('/v0/persons', { name: 'Nope' });
    expect(post.status).toBe(403);
    expect(post.body.code).toBe('forbidden');
    const person = (await api.post('/v0/persons', { name: 'Target' })).body;
    expect((await reader.patch(`/v0/persons/${person.personId}`, { name: 'X' })).status).toBe(403);
    expect((await reader.delete(`/v0/persons/${person.personId}`)).status).toBe(403);
    expect((await api.get('/v0/persons')).body.totalCount).toBe(before + 1);
  });

  it('a second key of the same tenant sees the same data', async () => {
    const key = await issueKey(anyTables(server.database), api.tenantId);
    const person = (await api.post('/v0/persons', { name: 'Shared' })).body;
    expect((await api.as(key.apiKey).get(`/v0/persons/${person.personId}`)).status).toBe(200);
  });

  it('health probes and the API document need no key', async () => {
    const anonymous = server.anonymous();
    expect((await anonymous.get('/healthz')).status).toBe(200);
    expect((await anonymous.get('/readyz')).status).toBe(200);
    expect((await anonymous.get('/v0/openapi.json')).status).toBe(200);
  });
});
