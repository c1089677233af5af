import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key', () => {
  it('replays the first response to a retry with the same body', async () => {
    const first = await api.post('/v0/persons', { name: 'Once' }, withKey('create-once'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await api.post('/v0/persons', { name: 'Once' }, withKey('create-once'));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    const all = await api.get('/v0/persons?limit=100');
    expect(all.body.items.filter((p: { name: string }) => p.name === 'Once')).toHaveLength(1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const first = await api.post(
      '/v0/persons',
      { name: 'Order', phoneNumber: '+15551234567' },
      withKey('order'),
    );
    const retry = await api.post(
      '/v0/persons',
      { phoneNumber: '+15551234567', name: 'Order' },
      withKey('order'),
    );
    expect(retry.body.personId).toBe(first.body.personId);
  });

  it('422 idempotency_key_reused for the same key with another body', async () => {
    await api.post('/v0/persons', { name: 'First body' }, withKey('reused'));
    const response = await api.post('/v0/persons', { name: 'Second body' }, withKey('reused'));
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('idempotency_key_reused');
  });

  it('422 for the same key on another endpoint', async () => {
    await api.post('/v0/persons', { name: 'Endpoint' }, withKey('endpoint'));
    const response = await api.post('/v0/accounts', { domain: 'endpoint.example' }, withKey('endpoint'));
    expect(response.status).toBe(422);
  });

  it('replays an error answer too, but not a validation failure', async () => {
    await api.post('/v0/accounts', { domain: 'conflicting.example' });
    const first = await api.post(
      '/v0/accounts',
      { domain: 'conflicting.example' },
      withKey('conflict-replay'),
    );
    expect(first.status).toBe(409);
    const retry = await api.post(
      '/v0/accounts',
      { domain: 'conflicting.example' },
      withKey('conflict-replay'),
    );
    expect(retry.status).toBe(409);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');

    const invalid = await api.post('/v0/persons', { name: '' }, withKey('fix-and-retry'));
    expect(invalid.status).toBe(400);
    const fixed = await api.post('/v0/persons', { name: 'Fixed' }, withKey('fix-and-retry'));
    expect(fixed.status).toBe(201);
  });

  it('two concurrent first uses create one object', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => api.post('/v0/persons', { name: 'Racer' }, withKey('race'))),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.personId)).size).toBe(1);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('conflict');
    }
    const all = await api.get('/v0/persons?limit=100');
    expect(all.body.items.filter((p: { name: string }) => p.name === 'Racer')).toHaveLength(1);
  });

  it('keys are per tenant', async () => {
    const other = await server.newTenant();
    const mine = await api.post('/v0/persons', { name: 'Tenant key' }, withKey('per-tenant'));
    const theirs = await other.post('/v0/persons', { name: 'Tenant key' }, withKey('per-tenant'));
    expect(theirs.status).toBe(201);
    expect(theirs.body.personId).not.toBe(mine.body.personId);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('400 for a key over 255 characters', async () => {
    const response = await api.post('/v0/persons', { name: 'Long key' }, withKey('k'.repeat(256)));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('/headers/idempotency-key');
  });

  it('applies to POST only: a PATCH with a key runs every time', async () => {
    const person = (await api.post('/v0/persons', { name: 'Patched' })).body;
    const first = await api.patch(`/v0/persons/${person.personId}`, { name: 'One' }, withKey('patch'));
    const second = await api.patch(`/v0/persons/${person.personId}`, { name: 'Two' }, withKey('patch'));
    expect(first.body.name).toBe('One');
    expect(second.body.name).toBe('Two');
  });
});
