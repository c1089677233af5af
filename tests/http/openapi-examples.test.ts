import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { Signer } from '../../src/shared/signing.ts';
import { uploadImage } from '../helpers/images.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

// Every request-body example of the OpenAPI document, sent as "Try it out" on /docs sends it, must
// be accepted by the server that publishes it (decisions §9). Ids in an example name things of the
// reader's own tenant, so they are swapped for those of things made here first; so is a page token.

interface MediaType {
  schema?: { $ref?: string };
  example?: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, MediaType> };
}

/** Ids in examples look like real ones; each prefix is swapped for the id of the thing made here. */
const EXAMPLE_ID = /^(person|account|audience|file|asset)_[a-z0-9]{26}$/;

let server: TestServer;
let api: Client;
let operations: [string, string, Operation][];
const ids: Record<string, string> = { brand_id: 'acme' };
let token: string;

async function created(response: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await response;
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body;
}

/** One of each thing an example's path or body can name, in a tenant of its own. */
async function makeFixtures(): Promise<void> {
  ids.account_id = (await created(api.post('/v0/accounts', { domain: 'contoso-home.example' }))).accountId;
  ids.person_id = (
    await created(api.post('/v0/persons', { name: 'Sam Ortiz', email: 'sam.ortiz@contoso-home.example' }))
  ).personId;
  ids.person_log_id = (
    await created(api.post(`/v0/persons/${ids.person_id}/logs`, { text: 'Asked for a call back.' }))
  ).personLogId;
  ids.page_id = (await created(api.post('/v0/pages', SAMPLE_PAGE))).pageId;
  await created(api.post(`/v0/pages/${ids.page_id}/publish`));
  const audience = await created(api.post(`/v0/pages/${ids.page_id}/audiences`, {}));
  ids.audience_id = audience.audienceId;
  // Version 1, generated: a draft, which the version edit's example edits.
  ids.version_id = audience.latestVersion.versionId;
  await server.worker().drain();
  ids.topic_id = (await created(api.post('/v0/topics', { title: 'Product facts' }))).topicId;
  ids.topic_entry_id = (
    await created(
      api.post(`/v0/topics/${ids.topic_id}/entries`, {
        content: { type: 'text', content: 'Ships in 2 weeks.' },
      }),
    )
  ).topicEntryId;
  ids.file_id = await uploadImage(api);
  ids.asset_id = (
    await created(
      api.post('/v0/assets', { assetType: 'image', name: 'Logo', purpose: '', fileId: ids.file_id }),
    )
  ).assetId;
  ids.page_link_id = (
    await created(
      api.post('/v0/page_links', {
        path: '/fixture',
        target: { targetType: 'audience', audienceId: ids.audience_id },
      }),
    )
  ).pageLinkId;
  ids.subscription_id = (
    await created(api.post('/v0/webhook_subscriptions', { url: 'https://hooks.contoso-home.example/tailor' }))
  ).subscriptionId;
  token = issueToken(new Signer(TEST_SECRET), {
    tenantId: api.tenantId,
    pageId: fixtureId('page_id'),
    audienceId: fixtureId('audience_id'),
    pageLinkId: fixtureId('page_link_id'),
    arm: 'personalized',
    expiresAt: Date.now() + TOKEN_VALID_MS,
  });
}

/** The example with its ids and token replaced by this tenant's. */
function ownedBy(example: unknown): unknown {
  if (typeof example === 'string') {
    const prefix = EXAMPLE_ID.exec(example)?.[1];
    return prefix ? (ids[`${prefix}_id`] ?? example) : example;
  }
  if (Array.isArray(example)) return example.map(ownedBy);
  if (typeof example !== 'object' || example === null) return example;
  return Object.fromEntries(
    Object.entries(example).map(([key, value]) => [key, key === 'token' ? token : ownedBy(value)]),
  );
}

function fixtureId(name: string): string {
  const id = ids[name];
  if (!id) throw new Error(`No fixture for ${name}`);
  return id;
}

function pathOf(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => fixtureId(name));
}

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  const document = (await api.get('/v0/openapi.json')).body as {
    paths: Record<string, Record<string, Operation>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, string, Operation] => [
      method,
      path,
      operation,
    ]),
  );
  await makeFixtures();
});
afterAll(() => server.close());

describe('the examples of the OpenAPI document', () => {
  it('has an example for every JSON body but the empty one of an action', () => {
    const withoutExample = operations
      .filter(([, , operation]) => {
        const json = operation.requestBody?.content['application/json'];
        return json && json.example === undefined && json.schema?.$ref !== '#/components/schemas/EmptyBody';
      })
      .map(([method, path]) => `${method.toUpperCase()} ${path}`);
    expect(withoutExample).toEqual([]);
  });

  it('has every request-body example accepted by the server', async () => {
    const refused: string[] = [];
    let sent = 0;
    for (const [method, path, operation] of operations) {
      const example = operation.requestBody?.content['application/json']?.example;
      if (example === undefined) continue;
      const response = await api.request(method.toUpperCase(), pathOf(path), { body: ownedBy(example) });
      sent += 1;
      if (response.status >= 300) {
        refused.push(`${method.toUpperCase()} ${path} → ${response.status} ${JSON.stringify(response.body)}`);
      }
    }
    expect(refused).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(20);
  });
});
