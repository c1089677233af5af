import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

// What a client generator needs from the document (decisions §9): stable operation names, named
// bodies, optional action bodies, and no key asked of the endpoints that take none.

interface MediaType {
  schema?: { $ref?: string };
}
interface Operation {
  operationId?: string;
  security?: unknown[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

let server: TestServer;
let api: Client;
let document: Document;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  document = (await server.anonymous().get('/v0/openapi.json')).body;
});
afterAll(() => server.close());

function operations(): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );
}

describe('the OpenAPI document', () => {
  it('names every operation verbNoun, each name once', () => {
    const ids = operations().map(([, operation]) => operation.operationId);
    expect(ids.filter((id) => !/^[a-z]+[A-Z][A-Za-z]*$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining(['createPerson', 'listPersons', 'getAccount', 'searchAccounts', 'publishPage']),
    );
  });

  it('refers to a named schema for every request and response body', () => {
    const anonymous = operations().flatMap(([name, operation]) => {
      const bodies = [
        ...Object.values(operation.requestBody?.content ?? {}),
        ...Object.values(operation.responses).flatMap((response) => Object.values(response.content ?? {})),
      ];
      return bodies.filter((media) => !media.schema?.$ref).map(() => name);
    });
    expect(anonymous).toEqual([]);
    for (const name of [
      'Account',
      'Person',
      'PersonCreate',
      'PersonUpdate',
      'PersonList',
      'Page',
      'Problem',
    ]) {
      expect(document.components.schemas).toHaveProperty(name);
    }
  });

  it('declares an action body optional and every other body required', () => {
    const optional = operations()
      .filter(([, operation]) => operation.requestBody?.required === false)
      .map(([name]) => name);
    expect(optional.sort()).toEqual(
      [
        'POST /v0/pages/{page_id}/publish',
        'POST /v0/pages/{page_id}/archive',
        'POST /v0/pages/{page_id}/restore',
        'POST /v0/pages/{page_id}/audiences/{audience_id}/versions',
        'POST /v0/pages/{page_id}/audiences/{audience_id}/publish',
        'POST /v0/pages/{page_id}/audiences/{audience_id}/cancel',
        'POST /v0/assets/{asset_id}/restore',
        'POST /v0/webhook_subscriptions/{subscription_id}/rotate_secret',
        'POST /v0/webhook_subscriptions/{subscription_id}/test',
        'POST /v0/webhook_subscriptions/{subscription_id}/deliveries/{delivery_id}/retry',
      ].sort(),
    );
  });

  it('asks no key of health, public and download endpoints, and a 4xx of every operation', () => {
    const keyless = operations()
      .filter(([, operation]) => operation.security?.length === 0)
      .map(([name]) => name);
    const expected = operations()
      .map(([name]) => name)
      .filter((name) => / \/(healthz|readyz|v0\/public\/.*)$/.test(name));
    expect(keyless.sort()).toEqual(expected.sort());
    const without4xx = operations()
      .filter(([, operation]) => !Object.keys(operation.responses).some((status) => status.startsWith('4')))
      .map(([name]) => name);
    expect(without4xx).toEqual([]);
  });
});

describe('an action', () => {
  it('is accepted with no body and no content type, with an empty JSON body, and with {}', async () => {
    const page = (await api.post('/v0/pages', SAMPLE_PAGE)).body;
    const publish = `/v0/pages/${page.pageId}/publish`;
    const bare = await api.request('POST', publish);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body.status).toBe('published');
    const empty = await api.request('POST', publish, {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    const object = await api.post(publish, {});
    expect(object.status, JSON.stringify(object.body)).toBe(200);
    expect(object.body).toEqual(bare.body);
  });
});
