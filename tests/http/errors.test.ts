import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problem } from '../../src/http/schemas.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

function expectProblem(
  response: { status: number; headers: Headers; body: any },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expectSchema(Problem, response.body);
  expect(response.body).toMatchObject({ status, code, type: `urn:tailor:error:${code}` });
  expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
}

describe('problem details', () => {
  it('404 not_found for an unknown path', async () => {
    expectProblem(await api.get('/v0/nothing-here'), 404, 'not_found');
  });

  it('405 method_not_allowed with Allow for a known path', async () => {
    const response = await api.request('PUT', '/v0/persons');
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('400 invalid_json for a malformed body', async () => {
    const response = await api.request('POST', '/v0/persons', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'invalid_json');
  });

  it('400 validation_failed with a JSON pointer per problem', async () => {
    const response = await api.post('/v0/persons', { name: '', extra: 1 });
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: '/body/name', message: expect.any(String) },
        { path: '/body/extra', message: 'is not a known field' },
      ]),
    );
  });

  it('400 for a body that is not an object', async () => {
    expectProblem(await api.post('/v0/persons', ['a']), 400, 'validation_failed');
    expectProblem(await api.post('/v0/persons', 'name'), 400, 'validation_failed');
  });

  it('400 for a missing body on a create', async () => {
    expectProblem(await api.request('POST', '/v0/persons'), 400, 'validation_failed');
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const response = await api.request('POST', '/v0/persons', {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(response, 415, 'unsupported_media_type');
    const text = await api.request('POST', '/v0/persons', {
      raw: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(text, 415, 'unsupported_media_type');
  });

  it('accepts a JSON content type with a charset', async () => {
    const response = await api.request('POST', '/v0/persons', {
      raw: JSON.stringify({ name: 'Charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });

  it('413 payload_too_large over 1 MiB, and nothing is created', async () => {
    const before = (await api.get('/v0/persons')).body.totalCount;
    const response = await api.post('/v0/persons', {
      name: 'Big',
      linkedinProfileUrl: 'x'.repeat(1024 * 1024),
    });
    expectProblem(response, 413, 'payload_too_large');
    expect((await api.get('/v0/persons')).body.totalCount).toBe(before);
  });

  it('400 for a wrongly typed query parameter', async () => {
    expectProblem(await api.get('/v0/persons?limit=abc'), 400, 'validation_failed');
  });
});

describe('request ids', () => {
  it('echoes a well-formed x-request-id', async () => {
    const response = await api.get('/v0/persons', { headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
  });

  it('makes one when none (or a malformed one) is sent', async () => {
    const none = await api.get('/v0/persons');
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await api.get('/v0/persons', { headers: { 'x-request-id': 'a b\u00e9' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
