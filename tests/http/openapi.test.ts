import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let anonymous: Client;

beforeAll(async () => {
  server = await startServer();
  anonymous = server.anonymous();
});
afterAll(() => server.close());

describe('operations endpoints', () => {
  it('/healthz and /readyz answer without a key', async () => {
    expect((await anonymous.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await anonymous.get('/readyz')).body).toEqual({ status: 'ready' });
  });

  it('/v0/openapi.json is OpenAPI 3.1 with every endpoint and the key scheme', async () => {
    const response = await anonymous.get('/v0/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /v0/accounts',
        'GET /v0/accounts/search',
        'GET /v0/accounts/{account_id}',
        'PATCH /v0/accounts/{account_id}',
        'POST /v0/persons',
        'GET /v0/persons',
        'GET /v0/persons/{person_id}',
        'PATCH /v0/persons/{person_id}',
        'DELETE /v0/persons/{person_id}',
        'POST /v0/persons/{person_id}/logs',
        'GET /v0/persons/{person_id}/logs',
        'PATCH /v0/persons/{person_id}/logs/{person_log_id}',
      ]),
    );
  });

  it('documents the same constraints that validate requests', async () => {
    const document = (await anonymous.get('/v0/openapi.json')).body;
    const body = document.paths['/v0/persons'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name']);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(body.properties.phoneNumber.pattern).toBe('^\\+[1-9]\\d{1,14}$');
    const problem = document.paths['/v0/persons'].post.responses['4XX'];
    expect(problem).toBeDefined();
  });

  it('/docs renders the reference page', async () => {
    const response = await fetch(`${server.url}/docs`, { redirect: 'follow' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<html');
  });
});
