import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineSchemaReferences } from '../helpers/openapi.ts';
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
        'POST /v0/pages',
        'GET /v0/pages',
        'GET /v0/pages/search',
        'GET /v0/pages/{page_id}',
        'PATCH /v0/pages/{page_id}',
        'DELETE /v0/pages/{page_id}',
        'POST /v0/pages/{page_id}/publish',
        'POST /v0/pages/{page_id}/archive',
        'POST /v0/pages/{page_id}/restore',
        'POST /v0/topics',
        'GET /v0/topics/search',
        'GET /v0/topics/{topic_id}',
        'POST /v0/topics/{topic_id}/entries',
        'PATCH /v0/topics/{topic_id}/entries/{topic_entry_id}',
        'POST /v0/files',
        'GET /v0/files/{file_id}',
        'POST /v0/assets',
        'GET /v0/assets',
        'GET /v0/assets/trash',
        'GET /v0/assets/{asset_id}',
        'DELETE /v0/assets/{asset_id}',
        'POST /v0/assets/{asset_id}/restore',
        'POST /v0/page_links',
        'GET /v0/page_links',
        'GET /v0/page_links/{page_link_id}',
        'PATCH /v0/page_links/{page_link_id}',
        'DELETE /v0/page_links/{page_link_id}',
        'GET /v0/form_submissions',
        'GET /v0/form_submissions/{form_submission_id}',
        'POST /v0/pages/{page_id}/audiences',
        'GET /v0/audiences',
        'GET /v0/pages/{page_id}/audiences',
        'GET /v0/pages/{page_id}/audiences/{audience_id}',
        'PATCH /v0/pages/{page_id}/audiences/{audience_id}',
        'DELETE /v0/pages/{page_id}/audiences/{audience_id}',
        'POST /v0/pages/{page_id}/audiences/{audience_id}/versions',
        'GET /v0/pages/{page_id}/audiences/{audience_id}/versions',
        'GET /v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}',
        'PATCH /v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}',
        'POST /v0/pages/{page_id}/audiences/{audience_id}/publish',
        'POST /v0/pages/{page_id}/audiences/{audience_id}/cancel',
        'POST /v0/webhook_subscriptions',
        'GET /v0/webhook_subscriptions',
        'GET /v0/webhook_subscriptions/{subscription_id}',
        'PATCH /v0/webhook_subscriptions/{subscription_id}',
        'DELETE /v0/webhook_subscriptions/{subscription_id}',
        'POST /v0/webhook_subscriptions/{subscription_id}/rotate_secret',
        'GET /v0/webhook_subscriptions/{subscription_id}/deliveries',
      ]),
    );
  });

  it('describes every operation', async () => {
    const document = (await anonymous.get('/v0/openapi.json')).body;
    const undescribed = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { summary?: string }>)
        .filter(([, operation]) => !operation.summary)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undescribed).toEqual([]);
  });

  it('documents the same constraints that validate requests', async () => {
    const document = inlineSchemaReferences((await anonymous.get('/v0/openapi.json')).body);
    const body = document.paths['/v0/persons'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name']);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(body.properties.phoneNumber.pattern).toBe('^\\+[1-9]\\d{1,14}$');
    const problem = document.paths['/v0/persons'].post.responses['400'];
    expect(problem.$ref).toBe('#/components/responses/BadRequestIdempotent');
    expect(document.components.responses.BadRequestIdempotent.content).toEqual({
      'application/problem+json': { schema: document.components.schemas.Problem },
    });
  });

  it('/docs renders the reference page', async () => {
    const response = await fetch(`${server.url}/docs`, { redirect: 'follow' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<html');
  });
});
