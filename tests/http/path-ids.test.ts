import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { ID_PREFIXES } from '../../src/shared/ids.ts';
import { Signer } from '../../src/shared/signing.ts';
import { TableCounts } from '../fuzz/checks.ts';
import { uploadImage } from '../helpers/images.ts';
import { inlineSchemaReferences } from '../helpers/openapi.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { startReceiver } from '../helpers/receiver.ts';
import {
  type Client,
  ok,
  onPostgres,
  type Response,
  startServer,
  TEST_SECRET,
  type TestServer,
} from '../helpers/server.ts';

/**
 * Path parameters are ids, nothing else (decisions §9): every operation of the served document
 * that has a path parameter is sent, over a raw socket (fetch and inject would resolve `..` and `.`
 * themselves), a value of another form in each parameter, the others real ids of the caller's
 * tenant: each answer is 404 not_found, whatever the body, and nothing is written.
 */

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema: { pattern?: string };
}
interface Operation {
  parameters?: Parameter[];
  security?: unknown[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
}
type Document = { paths: Record<string, Record<string, Operation>> };

let server: TestServer;
let api: Client;
let document: Document;
/** A real id of the tenant for each path parameter, by its name. */
const real: Record<string, string> = {};
let closeReceiver: () => Promise<void>;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  document = inlineSchemaReferences((await ok(api.get('/v0/openapi.json'))) as Document);
  await seed();
});
afterAll(async () => {
  await closeReceiver?.();
  await server?.close();
});

/** One resource of every kind a path names, linked as a user links them. */
async function seed(): Promise<void> {
  const created = (request: Promise<Response>) => ok(request, 201);
  const account = await created(api.post('/v0/accounts', { domain: 'acme.example', name: 'Acme' }));
  const person = await created(api.post('/v0/persons', { name: 'Ada', email: 'ada@acme.example' }));
  const log = await created(api.post(`/v0/persons/${person.personId}/logs`, { text: 'Met at the fair' }));
  const fileId = await uploadImage(api);
  const asset = await created(
    api.post('/v0/assets', { assetType: 'image', name: 'Logo', purpose: '', fileId }),
  );
  await created(api.request('PUT', '/v0/brands/acme', { body: { name: 'Acme' } }));
  const topic = await created(api.post('/v0/topics', { title: 'Shipping' }));
  const entry = await created(
    api.post(`/v0/topics/${topic.topicId}/entries`, { content: { type: 'markdown', content: 'Fast.' } }),
  );
  const site = await publishLinkedPage(server, api, {
    path: '/ids',
    personalize: false,
    audience: { personId: person.personId },
  });
  const versions = await ok(api.get(`/v0/pages/${site.pageId}/audiences/${site.audienceId}/versions`));
  const domain = await created(api.post('/v0/tenant_domains', { hostname: 'go.acme.example' }));
  const receiver = await startReceiver();
  closeReceiver = receiver.close;
  const subscription = await created(api.post('/v0/webhook_subscriptions', { url: receiver.url }));
  const delivery = await ok(api.post(`/v0/webhook_subscriptions/${subscription.subscriptionId}/test`));
  const token = issueToken(new Signer(TEST_SECRET), {
    tenantId: api.tenantId,
    pageId: site.pageId,
    audienceId: site.audienceId,
    pageLinkId: site.pageLinkId,
    arm: 'personalized',
    expiresAt: Date.now() + TOKEN_VALID_MS,
  });
  const lead = await created(
    server.anonymous().post('/v0/public/forms', { token, email: 'lead@acme.example', fields: {} }),
  );
  Object.assign(real, {
    account_id: account.accountId,
    asset_id: asset.assetId,
    audience_id: site.audienceId,
    brand_id: 'acme',
    delivery_id: delivery.deliveryId,
    file_id: fileId,
    form_submission_id: lead.formSubmissionId,
    hostname: 'go.acme.example',
    page_id: site.pageId,
    page_link_id: site.pageLinkId,
    person_id: person.personId,
    person_log_id: log.personLogId,
    subscription_id: subscription.subscriptionId,
    tenant_domain_id: domain.tenantDomainId,
    topic_entry_id: entry.topicEntryId,
    topic_id: topic.topicId,
    version_id: versions.items.at(-1).versionId,
  });
}

function operations() {
  return Object.entries(document.paths).flatMap(([template, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      operation,
      pathParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path'),
    })),
  );
}

const ULID = '01jdq4b7e2g5j8k1m3n6p9r2s4';

/**
 * Values no id of `parameter` takes, as they are written in a path: `..` and `.` as they are and
 * percent-encoded, a space, an id of a prefix no kind has, an id of another kind of this tenant,
 * and one over any id's length. Those that the parameter's pattern takes (a brand id may look like
 * anything) are left out.
 */
function malformed(parameter: Parameter): string[] {
  const pattern = parameter.schema.pattern ? new RegExp(parameter.schema.pattern, 'u') : undefined;
  const otherKind = Object.values(real).find((id) => id !== real[parameter.name] && /_/.test(id));
  const values = ['..', '%2E%2E', '.', '%2e', '%20', `nope_${ULID}`, otherKind ?? '', 'x'.repeat(65)];
  return values.filter((value) => !pattern?.test(decodeURIComponent(value)));
}

interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** A request sent with its path exactly as written. */
function rawRequest(method: string, path: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(server.url);
  return new Promise<RawAnswer>((resolve, reject) => {
    const request = http.request({ hostname, port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'] ?? '',
          body: text,
        }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Bodies to send: one the operation would take (its example, or `{}`) and one that is no JSON. */
function bodiesOf(operation: Operation): (string | undefined)[] {
  const json = operation.requestBody?.content['application/json'];
  if (!json) return [undefined];
  const example = json.example ?? Object.values(json.examples ?? {})[0]?.value ?? {};
  return [JSON.stringify(example), '{"unfinished":'];
}

describe('path parameters are ids', () => {
  it('are described, and every id has the pattern of its kind, which real ids match', () => {
    const parameters = operations().flatMap(({ pathParameters }) => pathParameters);
    expect(parameters.length).toBeGreaterThan(0);
    for (const parameter of parameters) {
      expect(parameter.description, parameter.name).toBeTruthy();
      expect(real[parameter.name], `a real ${parameter.name}`).toBeDefined();
      if (!parameter.name.endsWith('_id')) continue;
      const pattern = new RegExp(parameter.schema.pattern ?? '', 'u');
      expect(parameter.schema.pattern, parameter.name).toBeDefined();
      expect(real[parameter.name], parameter.name).toMatch(pattern);
      for (const never of ['', '.', '..', ' ']) expect(never, parameter.name).not.toMatch(pattern);
      if (parameter.name === 'brand_id') continue;
      const prefix = /^\^([a-z]+)_/.exec(parameter.schema.pattern ?? '')?.[1];
      expect(ID_PREFIXES as readonly string[], parameter.name).toContain(prefix);
    }
  });

  it('answers 404 not_found for any other value, before reading the body, and changes nothing', async () => {
    const counts = await TableCounts.of(server.database, [api.tenantId], onPostgres);
    const before = await counts.snapshot();
    const wrong: string[] = [];
    let sent = 0;
    for (const { method, template, operation, pathParameters } of operations()) {
      const keyed = operation.security === undefined;
      for (const parameter of pathParameters) {
        for (const value of malformed(parameter)) {
          const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
            name === parameter.name ? value : (real[name] as string),
          );
          for (const body of bodiesOf(operation)) {
            const headers = {
              ...(keyed ? { 'x-api-key': api.apiKey as string } : {}),
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            };
            const answer = await rawRequest(method, path, headers, body);
            sent++;
            const code = answer.contentType.startsWith('application/problem+json')
              ? JSON.parse(answer.body).code
              : undefined;
            if (answer.status !== 404 || code !== 'not_found') {
              wrong.push(`${method} ${path} ${body ?? ''}: ${answer.status} ${answer.body.slice(0, 200)}`);
            }
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(sent).toBeGreaterThan(500);
    expect(await counts.snapshot()).toEqual(before);
  });
});
