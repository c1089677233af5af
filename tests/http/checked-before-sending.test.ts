import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OperationId,
  operationIn,
  type RequestParts,
  requestErrors,
} from '../../console/src/operation-schemas.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The console checks each request against the schemas the API advertises before sending it
 * (console/src/operation-schemas.ts, with src/shared/schema-check.ts): it must refuse exactly what
 * the API refuses, in the same words at the same pointers, and pass what the API takes. Each case
 * below is checked as the console checks it, then sent as it is, and the two are compared.
 */

let server: TestServer;
let api: Client;
let document: Parameters<typeof operationIn>[0];

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  document = (await api.get('/v0/openapi.json')).body;
});
afterAll(() => server.close());

interface Case {
  operationId: OperationId;
  method: string;
  /** The address sent, with its parameters in place. */
  url: string;
  /** The same request as the console's typed client holds it. */
  parts: RequestParts;
}

const ULID = '01jqz8m2x3v4w5y6z7a8b9c0de';
const versionUrl = `/v0/pages/page_${ULID}/audiences/audience_${ULID}/versions/version_${ULID}`;
const emoji = '🙂';

/** Field errors in an order of their own, so that two checkers' lists compare. */
function sorted(errors: { path: string; message: string }[] = []) {
  return [...errors].sort((a, b) => `${a.path} ${a.message}`.localeCompare(`${b.path} ${b.message}`));
}

async function checkedAndSent({ operationId, method, url, parts }: Case) {
  const before = await requestErrors(operationIn(document, { operationId }), parts);
  const sent = await api.request(method, url, { body: parts.body });
  return { before: sorted(before), sent };
}

const refused: [string, Case][] = [
  [
    'missing, empty, unknown, a format and a pattern',
    {
      operationId: 'createPerson',
      method: 'POST',
      url: '/v0/persons',
      parts: { body: { email: 'a@b', phoneNumber: 'call me', linkedinProfileUrl: '', nickname: 'Al' } },
    },
  ],
  [
    'a choice, a field missing and one unknown on a page',
    {
      operationId: 'createPage',
      method: 'POST',
      url: '/v0/pages',
      parts: { body: { ...SAMPLE_PAGE, pageType: 'landing', name: undefined, x: 1 } },
    },
  ],
  [
    'a repeated item and an address that is no URI',
    {
      operationId: 'createWebhookSubscription',
      method: 'POST',
      url: '/v0/webhook_subscriptions',
      parts: { body: { url: 'not a url', events: ['form.submitted', 'page.published', 'form.submitted'] } },
    },
  ],
  [
    "a headline's length counted in characters, too many sections, an empty heading, an unknown part",
    {
      operationId: 'updateAudienceVersion',
      method: 'PATCH',
      url: versionUrl,
      parts: {
        body: {
          content: {
            headline: emoji.repeat(91),
            sections: [
              { heading: '', body: 'b', extra: 1 },
              ...Array.from({ length: 4 }, () => ({ heading: 'h', body: 'b' })),
            ],
          },
        },
      },
    },
  ],
  [
    "a union of choices, an empty text and an order below zero in a topic's entry",
    {
      operationId: 'createTopicEntry',
      method: 'POST',
      url: `/v0/topics/topic_${ULID}/entries`,
      parts: { body: { content: { type: 'html', content: '' }, sortOrder: -1 } },
    },
  ],
  [
    'an order that is no whole number, a brand id of the wrong shape, a repeated brand, a long title',
    {
      operationId: 'createTopic',
      method: 'POST',
      url: '/v0/topics',
      parts: {
        body: { title: 'T'.repeat(256), sortOrder: 1.5, brandIds: ['acme', 'not a brand!', 'acme'] },
      },
    },
  ],
  [
    'a nullable value given text of the wrong shape, and given a number',
    {
      operationId: 'updatePerson',
      method: 'PATCH',
      url: `/v0/persons/person_${ULID}`,
      parts: { body: { phoneNumber: 'call me', domain: 5 } },
    },
  ],
  [
    "a query parameter's range",
    {
      operationId: 'listPages',
      method: 'GET',
      url: '/v0/pages?limit=1000',
      parts: { querystring: { limit: 1000 } },
    },
  ],
];

describe("the console's check before sending", () => {
  it.each(refused)('refuses as the API does: %s', async (_, request) => {
    const { before, sent } = await checkedAndSent(request);
    expect(sent.status, JSON.stringify(sent.body)).toBe(400);
    expect(before.length).toBeGreaterThan(0);
    expect(before).toEqual(sorted(sent.body.errors));
  });

  it('refuses a path parameter of the wrong shape, which the API answers 404 (it names nothing)', async () => {
    const { before, sent } = await checkedAndSent({
      operationId: 'putBrand',
      method: 'PUT',
      url: `/v0/brands/${encodeURIComponent('not a brand!')}`,
      parts: { params: { brand_id: 'not a brand!' }, body: { name: 'Acme' } },
    });
    expect(before.map((error) => error.path)).toEqual(['/params/brand_id']);
    expect(sent.status, JSON.stringify(sent.body)).toBe(404);
    expect(sent.body.code).toBe('not_found');
  });

  it('passes what the API takes', async () => {
    const accepted: Case[] = [
      {
        operationId: 'createPerson',
        method: 'POST',
        url: '/v0/persons',
        parts: {
          body: { name: 'Jane Doe', email: 'jane.doe+x@sub.acme.co.uk', phoneNumber: '+14155550100' },
        },
      },
      {
        operationId: 'createTopic',
        method: 'POST',
        url: '/v0/topics',
        parts: { body: { title: emoji.repeat(255), sortOrder: 3, brandIds: ['acme', 'acme.retail'] } },
      },
      {
        operationId: 'createWebhookSubscription',
        method: 'POST',
        url: '/v0/webhook_subscriptions',
        parts: { body: { url: 'https://hooks.acme.example/t?x=1', events: ['form.submitted'] } },
      },
      { operationId: 'createPage', method: 'POST', url: '/v0/pages', parts: { body: SAMPLE_PAGE } },
      {
        operationId: 'putBrand',
        method: 'PUT',
        url: '/v0/brands/acme.retail',
        parts: {
          params: { brand_id: 'acme.retail' },
          body: { name: 'Acme', colors: { primary: '#1F4ED8' } },
        },
      },
      {
        operationId: 'listPages',
        method: 'GET',
        url: '/v0/pages?limit=100&query=spring',
        parts: { querystring: { limit: 100, query: 'spring' } },
      },
    ];
    for (const request of accepted) {
      const { before, sent } = await checkedAndSent(request);
      expect(before, request.operationId).toEqual([]);
      expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
    }
  });

  it("holds formats to the server's definitions, not the checker's own", async () => {
    const person = operationIn(document, { operationId: 'createPerson' });
    // TypeBox's own email format takes these; the API (ajv-formats) does not.
    for (const email of ['a@b', 'x@localhost', '"q"@acme.com']) {
      expect(await requestErrors(person, { body: { name: 'A', email } })).toEqual([
        { path: '/body/email', message: 'must be an email address such as jane@acme.com' },
      ]);
      expect((await api.post('/v0/persons', { name: 'A', email })).status).toBe(400);
    }
  });

  it("reads an answer's schema: how many entries a topic holds", () => {
    const topic = operationIn(document, { operationId: 'getTopic' });
    expect(topic.answer?.properties).toHaveProperty('entries.maxItems', 100);
  });
});
