import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/cli/openapi.ts';
import { inlineSchemaReferences } from '../helpers/openapi.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Refusals say what is wanted in words, with an example where a value has a shape, and limits as
 * people say them (docs/api.md, Errors); `code`, `path` and the problem's shape stay as decisions §2
 * has them.
 */

let server: TestServer;
let api: Client;
let audienceId: string;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  const page = await api.post('/v0/pages', SAMPLE_PAGE);
  audienceId = (await api.post(`/v0/pages/${page.body.pageId}/audiences`, {})).body.audienceId;
});
afterAll(() => server.close());

interface Refusal {
  status: number;
  body: { code: string; detail: string; errors?: { path: string; message: string }[] };
}

/** The one field error of a 400, whose detail says it with its pointer. */
function onlyError(response: Refusal): { path: string; message: string } {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.code).toBe('validation_failed');
  expect(response.body.errors).toHaveLength(1);
  const [error] = response.body.errors ?? [];
  expect(response.body.detail).toBe(`${error?.path} ${error?.message}`);
  return error as { path: string; message: string };
}

const PATH_WORDS =
  "must be a path such as /platform/tom-becker: slashes, each followed by lowercase letters, digits, '.', '_', '~' or '-' (a part may not be '.' or '..'); capitals are lowercased";
const PHONE_WORDS =
  'must be a phone number in international form (E.164) such as +14155550100: "+", the country code and the number, at most 15 digits, no spaces';

describe('a value of the wrong shape', () => {
  it('a link path: in words with its example, and capitals taken as the words say', async () => {
    const target = { targetType: 'audience', audienceId };
    expect(onlyError(await api.post('/v0/page_links', { path: 'platform/tom', target }))).toEqual({
      path: '/body/path',
      message: PATH_WORDS,
    });
    expect(onlyError(await api.post('/v0/page_links', { path: '/a/../b', target })).message).toBe(PATH_WORDS);
    const capitals = await api.post('/v0/page_links', { path: '/Platform/Tom-Becker', target });
    expect(capitals.status).toBe(201);
    expect(capitals.body.path).toBe('/platform/tom-becker');
  });

  it('a phone number: one error, also where null would clear it', async () => {
    expect(onlyError(await api.post('/v0/persons', { name: 'Ada', phoneNumber: 'call me' }))).toEqual({
      path: '/body/phoneNumber',
      message: PHONE_WORDS,
    });
    const person = (await api.post('/v0/persons', { name: 'Ada' })).body;
    const patch = (body: unknown) => api.patch(`/v0/persons/${person.personId}`, body);
    expect(onlyError(await patch({ phoneNumber: '0044 20 7183' })).message).toBe(PHONE_WORDS);
    expect(onlyError(await patch({ phoneNumber: 4420 })).message).toBe(`${PHONE_WORDS}, or null`);
  });

  it('a colour, an email, an id in a query', async () => {
    const put = (brandId: string, body: unknown) => api.request('PUT', `/v0/brands/${brandId}`, { body });
    expect(onlyError(await put('acme', { name: 'Acme', colors: { primary: 'red' } }))).toEqual({
      path: '/body/colors/primary',
      message: 'must be a colour such as #3730a3: "#" and six hexadecimal digits (0-9, a-f)',
    });
    expect(onlyError(await api.post('/v0/persons', { name: 'Ada', email: 'ada' })).message).toBe(
      'must be an email address such as jane@acme.com',
    );
    expect(onlyError(await api.get('/v0/audiences?personId=ada'))).toEqual({
      path: '/querystring/personId',
      message: 'must be a person id such as person_01jdq4b7e2g5j8k1m3n6p9r2s4',
    });
  });

  it('a union says each of its members', async () => {
    const page = (await api.post('/v0/pages', SAMPLE_PAGE)).body;
    const answer = await api.get(`/v0/pages/${page.pageId}/analytics/audiences?startDate=yesterday`);
    expect(onlyError(answer)).toEqual({
      path: '/querystring/startDate',
      message:
        'must be a date and time such as 2026-01-31T09:00:00Z, to the second, with Z or an offset or a timestamp such as +1763719200000: "+" and Unix epoch milliseconds',
    });
  });
});

describe('limits as people say them', () => {
  it('lengths, with how long the value is', async () => {
    expect(onlyError(await api.post('/v0/persons', { name: 'x'.repeat(300) }))).toEqual({
      path: '/body/name',
      message: 'must have at most 255 characters (it has 300)',
    });
    expect(onlyError(await api.post('/v0/persons', { name: '' })).message).toBe('must not be empty');
  });

  it('ranges and whole numbers', async () => {
    const page = (await api.post('/v0/pages', SAMPLE_PAGE)).body;
    const audiences = `/v0/pages/${page.pageId}/audiences`;
    expect(onlyError(await api.post(audiences, { holdoutPercent: 90 }))).toEqual({
      path: '/body/holdoutPercent',
      message: 'must be a whole number from 0 to 50',
    });
    expect(onlyError(await api.post(audiences, { holdoutPercent: 2.5 })).message).toBe(
      'must be a whole number from 0 to 50',
    );
    expect(onlyError(await api.get('/v0/persons?limit=many')).message).toBe(
      'must be a whole number from 1 to 100',
    );
  });

  it('choices, missing and unknown fields, repeated items', async () => {
    const refused = await api.post('/v0/pages', {
      ...SAMPLE_PAGE,
      pageType: 'landing',
      name: undefined,
      x: 1,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(
      expect.arrayContaining([
        { path: '/body/name', message: 'is required' },
        { path: '/body/x', message: 'is not a known field' },
        {
          path: '/body/pageType',
          message: 'must be one of inbound, outbound, call_followup, sales_deck or custom',
        },
      ]),
    );
    const repeated = { url: 'https://hooks.acme.example/t', events: ['form.submitted', 'form.submitted'] };
    expect(onlyError(await api.post('/v0/webhook_subscriptions', repeated))).toEqual({
      path: '/body/events',
      message: 'must not hold the same value twice (items 1 and 2 are alike)',
    });
  });
});

describe('conflicts name what exists', () => {
  it("a person's email, on a create and on an edit", async () => {
    const sam = (await api.post('/v0/persons', { name: 'Sam', email: 'sam@initech.example' })).body;
    const create = await api.post('/v0/persons', { name: 'Sam again', email: 'SAM@initech.example' });
    expect(create.status).toBe(409);
    expect(create.body.detail).toBe(`A person with this email already exists: ${sam.personId}`);
    const other = (await api.post('/v0/persons', { name: 'Other' })).body;
    const edit = await api.patch(`/v0/persons/${other.personId}`, { email: 'sam@initech.example' });
    expect(edit.status).toBe(409);
    expect(edit.body.detail).toContain(sam.personId);
  });

  it("an account's domain and a link's path", async () => {
    const account = (await api.post('/v0/accounts', { domain: 'umbrella.example' })).body;
    const again = await api.post('/v0/accounts', { domain: 'https://www.umbrella.example/' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain(account.accountId);
    const target = { targetType: 'audience', audienceId };
    const link = (await api.post('/v0/page_links', { path: '/taken', target })).body;
    const taken = await api.post('/v0/page_links', { path: '/TAKEN', target });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain(link.pageLinkId);
  });

  it("never names another tenant's thing", async () => {
    const other = await server.newTenant();
    expect((await other.post('/v0/tenant_domains', { hostname: 'go.umbrella.example' })).status).toBe(201);
    const held = await api.post('/v0/tenant_domains', { hostname: 'go.umbrella.example' });
    expect(held.status).toBe(409);
    expect(held.body.detail).toBe('The hostname go.umbrella.example is already held');
    // Persons' emails are unique per tenant: the same email is no conflict in another tenant.
    await api.post('/v0/persons', { name: 'Kim', email: 'kim@umbrella.example' });
    expect((await other.post('/v0/persons', { name: 'Kim', email: 'kim@umbrella.example' })).status).toBe(
      201,
    );
  });
});

interface Parameter {
  description?: string;
  examples?: Record<string, { value: unknown }>;
  schema: unknown;
}
interface Shaped {
  pattern: string;
  description?: string;
  examples?: unknown[];
}

/** Every patterned string a request may hold, with the description its parameter gives when it has none. */
function patternedInputs(document: any): { where: string; schema: Shaped; description?: string }[] {
  const found: { where: string; schema: Shaped; description?: string }[] = [];
  const walk = (value: unknown, where: string, description?: string) => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${where}/${index}`, description);
      return;
    }
    const schema = value as Shaped;
    if (typeof schema.pattern === 'string') found.push({ where, schema, description });
    for (const [key, child] of Object.entries(value)) walk(child, `${where}/${key}`, description);
  };
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      for (const parameter of (operation.parameters ?? []) as Parameter[]) {
        walk(parameter.schema, `${method} ${path} ${JSON.stringify(parameter)}`, parameter.description);
      }
      walk(operation.requestBody, `${method} ${path} body`);
    }
  }
  walk(document.components.parameters, 'components.parameters');
  return found;
}

describe('the OpenAPI document', () => {
  it('describes every patterned input by its shape in words, with an example that fits it', async () => {
    const inputs = patternedInputs(inlineSchemaReferences(await openApiDocument()));
    expect(inputs.length).toBeGreaterThan(20);
    for (const { where, schema, description: given } of inputs) {
      const description = schema.description ?? given ?? '';
      const shape = description.split(/\.(?:\s|$)/)[0] ?? '';
      expect(shape, where).toMatch(/^An? [^ ]+.* such as [^ ]+/);
      const example = shape.match(/ such as ([^ ]+?)[:,]?(?: |$)/)?.[1];
      for (const each of [example, ...(schema.examples ?? [])]) {
        expect(new RegExp(schema.pattern).test(String(each)), `${where}: ${each}`).toBe(true);
      }
    }
  });
});
