import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { Signer } from '../../src/shared/signing.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import { type Client, ok, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

/**
 * What the document says of the public writes' media types and of Idempotency-Key (decisions §9),
 * checked against the document's own operations and against the server's answers.
 */

interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: { $ref?: string; name?: string }[];
  requestBody?: { content: Record<string, unknown> };
}
interface Document {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, { name: string }> };
}

let server: TestServer;
let api: Client;
let document: Document;
let token: string;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  document = await ok(api.get('/v0/openapi.json'));
  const site = await publishLinkedPage(server, api, { path: '/overview', personalize: false });
  token = issueToken(new Signer(TEST_SECRET), {
    tenantId: api.tenantId,
    pageId: site.pageId,
    audienceId: site.audienceId,
    pageLinkId: site.pageLinkId,
    arm: 'personalized',
    expiresAt: Date.now() + TOKEN_VALID_MS,
  });
});
afterAll(() => server?.close());

function posts() {
  return Object.entries(document.paths).flatMap(([path, byMethod]) =>
    byMethod.post ? [{ path, operation: byMethod.post }] : [],
  );
}

/** A body each public write takes, by operation: a new public write needs one here. */
const acceptedBodies: Record<string, () => unknown> = {
  reportSessionEvents: () => ({
    token,
    sessionId: `overview-${Math.random().toString(36).slice(2)}`,
    events: [{ type: 'session_start', at: Date.now() }],
  }),
  submitForm: () => ({ token, email: 'lead@acme.example', fields: { message: 'Call me' } }),
};

const publicPosts = () => posts().filter(({ operation }) => operation.security?.length === 0);

describe('the public writes', () => {
  it('declare JSON and text/plain, the type navigator.sendBeacon sends', () => {
    expect(publicPosts().map(({ operation }) => operation.operationId)).toEqual(
      expect.arrayContaining(['reportSessionEvents', 'submitForm']),
    );
    for (const { operation } of publicPosts()) {
      expect(Object.keys(operation.requestBody?.content ?? {}).sort(), operation.operationId).toEqual([
        'application/json',
        'text/plain',
      ]);
    }
  });

  it('take a body in each media type they declare, with a charset too, and refuse another with 415', async () => {
    for (const { path, operation } of publicPosts()) {
      const body = acceptedBodies[operation.operationId];
      expect(body, `a body for ${operation.operationId}`).toBeDefined();
      const send = (type: string) =>
        server
          .anonymous()
          .request('POST', path, { raw: JSON.stringify(body?.()), headers: { 'content-type': type } });
      for (const type of Object.keys(operation.requestBody?.content ?? {})) {
        for (const sent of [type, `${type};charset=UTF-8`]) {
          const answer = await send(sent);
          expect(
            answer.status,
            `${operation.operationId} ${sent}: ${JSON.stringify(answer.body)}`,
          ).toBeLessThan(300);
        }
      }
      const refused = await send('application/x-www-form-urlencoded');
      expect(refused.status).toBe(415);
      expect(refused.body.code).toBe('unsupported_media_type');
    }
  });
});

/** The POSTs an overview's list names, from its lines "- `POST /path` (`operationId`)". */
function listedIn(text: string): string[] {
  return [...text.matchAll(/^- `POST (\S+)` \(`(\w+)`\)$/gm)].map(
    ([, path, operationId]) => `${path} ${operationId}`,
  );
}

describe("the overview's word on Idempotency-Key", () => {
  const declaresKey = (operation: Operation) =>
    (operation.parameters ?? []).some(
      (parameter) =>
        (parameter.$ref
          ? document.components.parameters[parameter.$ref.split('/').at(-1) as string]?.name
          : parameter.name) === 'Idempotency-Key',
    );
  const named = (chosen: ReturnType<typeof posts>) =>
    chosen.map(({ path, operation }) => `${path} ${operation.operationId}`).sort();

  it('lists exactly the POSTs that declare the header as honouring it, and every other POST as not', () => {
    const [honoured = '', others = ''] = document.info.description.split(
      /^These POSTs, which take no API key, do not:$/m,
    );
    expect(listedIn(honoured).sort()).toEqual(
      named(posts().filter(({ operation }) => declaresKey(operation))),
    );
    expect(listedIn(others).sort()).toEqual(
      named(posts().filter(({ operation }) => !declaresKey(operation))),
    );
    expect(listedIn(honoured).length).toBeGreaterThan(10);
  });

  it('holds: a POST it lists replays a retry, one it leaves out runs it again', async () => {
    const key = { 'idempotency-key': `overview-${Date.now()}` };
    const account = { domain: 'overview.example', name: 'Overview' };
    const first = await api.post('/v0/accounts', account, { headers: key });
    const retry = await api.post('/v0/accounts', account, { headers: key });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.accountId).toBe(first.body.accountId);

    const form = acceptedBodies.submitForm?.();
    const submitted = await server.anonymous().post('/v0/public/forms', form, { headers: key });
    const again = await server.anonymous().post('/v0/public/forms', form, { headers: key });
    expect([submitted.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.formSubmissionId).not.toBe(submitted.body.formSubmissionId);
  });
});
