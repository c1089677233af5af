import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpServer, openToolbox } from '../../src/mcp/server.ts';
import { issueToken } from '../../src/public/token.ts';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { Signer } from '../../src/shared/signing.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, ok, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

/**
 * The MCP server as a host meets it: the official SDK's client, over an in-memory transport, in
 * front of a real Tailor server on 127.0.0.1. The SDK's client checks every structured answer
 * against the tool's outputSchema itself, as hosts do (its listTools caches the schemas).
 */

let server: TestServer;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await server.close();
});

async function agent(apiKey: string): Promise<McpClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const mcp = mcpServer(await openToolbox({ baseUrl: server.url, apiKey }));
  await mcp.connect(serverSide);
  const client = new McpClient({ name: 'tailor-test', version: '1.0.0' });
  await client.connect(clientSide);
  await client.listTools();
  closers.push(() => client.close());
  return client;
}

async function call(client: McpClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const [content] = result.content;
  return content?.type === 'text' ? content.text : '';
}

/** The structured answer of a call that succeeded; the test fails with the tool's error otherwise. */
async function answer(client: McpClient, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  expect(result.structuredContent).toEqual(JSON.parse(textOf(result)));
  return result.structuredContent;
}

async function refusal(client: McpClient, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result);
}

const byName = (tools: Tool[]) => new Map(tools.map((tool) => [tool.name, tool]));

describe('every tool', () => {
  let api: Client;
  let writer: McpClient;
  beforeAll(async () => {
    api = await server.newTenant();
    writer = await agent(api.apiKey as string);
  });

  it('declares an object outputSchema, the answer of its operation in the served document, standing alone', async () => {
    const { tools } = await writer.listTools();
    const schemas = (await api.get('/v0/openapi.json')).body.components.schemas;
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(JSON.stringify(tool.outputSchema), tool.name).not.toContain('$ref');
    }
    const named = byName(tools);
    const page = named.get('get_page')?.outputSchema;
    expect(Object.keys(page?.properties ?? {})).toEqual(Object.keys(schemas.Page.properties));
    expect(page?.required).toEqual(schemas.Page.required);
    expect(named.get('wait_for_draft')?.outputSchema).toEqual(
      named.get('get_audience_version')?.outputSchema,
    );
  });

  it('says what calling it does: read-only, additive, destructive, idempotent; none reaches an open world', async () => {
    const hints = ({ annotations }: Tool) => [
      annotations?.readOnlyHint,
      annotations?.destructiveHint,
      annotations?.idempotentHint,
      annotations?.openWorldHint,
    ];
    const tools = byName((await writer.listTools()).tools);
    // readOnly, destructive, idempotent, openWorld
    const read = [true, false, true, false];
    const create = [false, false, true, false];
    const change = [false, true, true, false];
    const expected: Record<string, boolean[]> = {
      get_page: read,
      find_persons: read,
      wait_for_draft: read,
      create_page: create,
      create_audience: create,
      create_page_link: create,
      find_or_create_person: create,
      publish_page: change,
      publish_audience: change,
      update_audience: change,
      edit_draft: change,
      regenerate_audience: [false, true, false, false],
    };
    for (const [name, flags] of Object.entries(expected))
      expect(hints(tools.get(name) as Tool), name).toEqual(flags);
    for (const tool of tools.values())
      expect(
        hints(tool).every((flag) => typeof flag === 'boolean'),
        tool.name,
      ).toBe(true);
  });

  it('answers structured content valid against its outputSchema, every one of them', async () => {
    const { tools } = await writer.listTools();
    const stamp = Date.now().toString(36);
    const { personId } = await ok(
      api.post('/v0/persons', { name: 'Grace Hopper', email: `grace-${stamp}@cobol.example` }),
      201,
    );
    const { accountId } = await ok(
      api.post('/v0/accounts', { domain: `cobol-${stamp}.example`, name: 'Cobol Systems' }),
      201,
    );
    await ok(api.request('PUT', '/v0/brands/acme', { body: { name: 'Acme' } }), 201);
    const answers = new Map<string, unknown>();
    const run = async (name: string, args: Record<string, unknown>) => {
      const structured = await answer(writer, name, args);
      answers.set(name, structured);
      return structured;
    };

    await run('get_tenant', {});
    await run('search_accounts', { query: 'cobol' });
    await run('get_account', { account_id: accountId });
    await run('find_persons', { query: 'grace' });
    await run('get_person', { person_id: personId });
    await run('find_or_create_person', { name: 'Alan Turing', email: `alan-${stamp}@bletchley.example` });
    const { pageId } = await run('create_page', { ...SAMPLE_PAGE, name: 'Mainframe offer' });
    await run('list_pages', {});
    await run('search_pages', { query: 'mainframe' });
    await run('get_page', { page_id: pageId });
    await run('publish_page', { page_id: pageId });
    await run('list_brands', {});
    await run('get_brand', { brand_id: 'acme' });
    const { audienceId } = await run('create_audience', { page_id: pageId, personId, holdoutPercent: 20 });
    const ids = { page_id: pageId, audience_id: audienceId };
    await run('list_audiences', { page_id: pageId });
    await run('find_audiences', { personId });
    await server.worker().drain();
    const draft = await run('wait_for_draft', ids);
    await run('get_audience', ids);
    await run('list_audience_versions', ids);
    const version = { ...ids, version_id: draft.versionId };
    await run('get_audience_version', version);
    await run('edit_draft', { ...version, content: { headline: 'Grace, your mainframe offer' } });
    await run('update_audience', { ...ids, supplementaryContext: 'She runs the COBOL team.' });
    await run('regenerate_audience', ids);
    await server.worker().drain();
    await run('publish_audience', ids);
    const { pageLinkId } = await run('create_page_link', {
      path: `/grace-${stamp}`,
      target: { targetType: 'audience', audienceId },
    });
    await run('list_page_links', { audienceId });
    await run('get_page_link', { page_link_id: pageLinkId });
    await run('get_audience_analytics', { page_id: pageId });
    await run('get_lift', ids);
    const token = issueToken(new Signer(TEST_SECRET), {
      tenantId: api.tenantId,
      pageId,
      audienceId,
      pageLinkId,
      arm: 'personalized',
      expiresAt: Date.now() + 60_000,
    });
    await ok(
      server.anonymous().post('/v0/public/forms', { token, email: `lead-${stamp}@example.com`, fields: {} }),
      201,
    );
    const { items } = await run('list_leads', { pageId });
    await run('get_lead', { form_submission_id: items[0].formSubmissionId });

    expect([...answers.keys()].sort()).toEqual(tools.map((tool) => tool.name).sort());
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    for (const tool of tools) {
      const validate = ajv.compile(tool.outputSchema as object);
      expect(validate(answers.get(tool.name)), `${tool.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});

describe('arguments, checked against the schema a tool lists before anything is sent', () => {
  let api: Client;
  let writer: McpClient;
  beforeAll(async () => {
    api = await server.newTenant();
    writer = await agent(api.apiKey as string);
  });

  it('names an unknown argument and the ones the tool takes', async () => {
    await ok(api.post('/v0/persons', { name: 'Ada Lovelace', email: 'ada@engines.example' }), 201);
    expect(await refusal(writer, 'find_persons', { serach: 'typo' })).toBe(
      'Invalid arguments for find_persons; nothing was sent:\n/serach: is not a known field; the known ones are cursor, limit, email, query',
    );
  });

  it('names a missing one, a mistyped one and an unknown one in the body, each on its line', async () => {
    expect(await refusal(writer, 'get_page', {})).toBe(
      'Invalid arguments for get_page; nothing was sent:\n/page_id: is required',
    );
    const problems = await refusal(writer, 'edit_draft', {
      page_id: 'page_x',
      audience_id: 7,
      content: { headline: 'New', colour: 'red' },
    });
    expect(problems.split('\n').slice(1).sort()).toEqual([
      '/audience_id: must be an audience id such as audience_01jdq4b7e2g5j8k1m3n6p9r2s4',
      '/content/colour: is not a known field; the known ones are headline, subheadline, sections',
      '/page_id: must be a page id such as page_01jdq4b7e2g5j8k1m3n6p9r2s4',
      '/version_id: is required',
    ]);
    expect(await refusal(writer, 'find_persons', { limit: 500 })).toMatch(/^\/limit: must be .*100/m);
  });

  it('sends nothing for a refused call: a create with a stray argument creates nothing', async () => {
    await refusal(writer, 'create_page', { ...SAMPLE_PAGE, name: 'Stray', colour: 'red' });
    expect((await ok(api.get('/v0/pages'))).totalCount).toBe(0);
  });
});

describe('path arguments that would turn one tool into another', () => {
  let api: Client;
  let writer: McpClient;
  let pageId: string;
  beforeAll(async () => {
    api = await server.newTenant();
    writer = await agent(api.apiKey as string);
    pageId = (await ok(api.post('/v0/pages', SAMPLE_PAGE), 201)).pageId;
  });

  it('publish_audience with the audience ".." does not publish the page', async () => {
    expect(await refusal(writer, 'publish_audience', { page_id: pageId, audience_id: '..' })).toBe(
      'Invalid arguments for publish_audience; nothing was sent:\n/audience_id: must be an id, not "..", which would call another endpoint',
    );
    expect((await ok(api.get(`/v0/pages/${pageId}`))).status).toBe('draft');
  });

  it('get_page with the page "..", ".", "" or a slash is refused; without one, page_id is required', async () => {
    for (const value of ['..', '.', '', `${pageId}/publish`, '..\\..'])
      expect(await refusal(writer, 'get_page', { page_id: value }), value).toMatch(
        /^\/page_id: must be an id, not .*, which would call another endpoint$/m,
      );
    expect(await refusal(writer, 'get_page', {})).toMatch(/^\/page_id: is required$/m);
    expect(await refusal(writer, 'wait_for_draft', { page_id: pageId, audience_id: '.' })).toMatch(
      /^\/audience_id: must be an id/m,
    );
    expect((await ok(api.get(`/v0/pages/${pageId}`))).status).toBe('draft');
  });

  it('any other value not of its id form is refused by the pattern the tool lists', async () => {
    expect(await refusal(writer, 'get_page', { page_id: 'page_1?x=1#y' })).toBe(
      'Invalid arguments for get_page; nothing was sent:\n/page_id: must be a page id such as page_01jdq4b7e2g5j8k1m3n6p9r2s4',
    );
  });
});

describe('creates', () => {
  let api: Client;
  let writer: McpClient;
  beforeAll(async () => {
    api = await server.newTenant();
    writer = await agent(api.apiKey as string);
  });

  it('make one object for the same call made twice (a host retrying), and another for another call', async () => {
    const page = { ...SAMPLE_PAGE, name: 'Retried' };
    const first = await answer(writer, 'create_page', page);
    const again = await answer(writer, 'create_page', { ...page, brandId: page.brandId });
    expect(again.pageId).toBe(first.pageId);
    expect((await ok(api.get('/v0/pages'))).totalCount).toBe(1);
    const other = await answer(writer, 'create_page', { ...page, name: 'Another' });
    expect(other.pageId).not.toBe(first.pageId);

    const audience = { page_id: first.pageId, customName: 'Retried audience' };
    const made = await answer(writer, 'create_audience', audience);
    expect((await answer(writer, 'create_audience', audience)).audienceId).toBe(made.audienceId);
    expect((await ok(api.get(`/v0/pages/${first.pageId}/audiences`))).totalCount).toBe(1);

    const nobody = { name: 'No Email' };
    const person = await answer(writer, 'find_or_create_person', nobody);
    expect((await answer(writer, 'find_or_create_person', nobody)).personId).toBe(person.personId);
  });

  it('a refused create made again once its cause is gone is a new request, not the refusal replayed', async () => {
    const { pageId } = await ok(api.post('/v0/pages', { ...SAMPLE_PAGE, name: 'Restored later' }), 201);
    await ok(api.delete(`/v0/pages/${pageId}`));
    const audience = { page_id: pageId, customName: 'After the restore' };
    expect(textOf(await call(writer, 'create_audience', audience))).toMatch(/409 invalid_state/);
    await ok(api.post(`/v0/pages/${pageId}/restore`));
    const created = await answer(writer, 'create_audience', audience);
    expect(created.customName).toBe('After the restore');
    expect((await answer(writer, 'create_audience', audience)).audienceId).toBe(created.audienceId);
  });
});

describe('wait_for_draft', () => {
  let api: Client;
  let writer: McpClient;
  beforeAll(async () => {
    api = await server.newTenant();
    writer = await agent(api.apiKey as string);
  });

  it('waits while the version is written, telling each state, and answers it as get_audience_version does', async () => {
    const { pageId } = await ok(api.post('/v0/pages', SAMPLE_PAGE), 201);
    const { audienceId } = await ok(
      api.post(`/v0/pages/${pageId}/audiences`, { customName: 'Waited for' }),
      201,
    );
    const worker = server.worker();
    const told: Progress[] = [];
    try {
      const result = (await writer.callTool(
        { name: 'wait_for_draft', arguments: { page_id: pageId, audience_id: audienceId } },
        undefined,
        {
          // Generation starts once the wait has seen the version queued: the wait sees it change.
          onprogress: (progress) => {
            if (told.push(progress) === 1) worker.start();
          },
        },
      )) as CallToolResult;
      expect(result.isError, textOf(result)).toBeFalsy();
      const version = result.structuredContent as any;
      expect(version.state).toBe('draft');
      expect(told[0]?.message).toBe('Version 1 is queued');
      expect(told.at(-1)?.message).toBe('Version 1 is draft');
      expect(told.map(({ progress }) => progress)).toEqual(told.map((_, index) => index + 1));
      const read = await answer(writer, 'get_audience_version', {
        page_id: pageId,
        audience_id: audienceId,
        version_id: version.versionId,
      });
      expect(version).toEqual(read);
    } finally {
      await worker.stop();
    }
  });

  it('answers the version as it is when the wait runs out, and bounds the wait', async () => {
    const { pageId } = await ok(api.post('/v0/pages', SAMPLE_PAGE), 201);
    const { audienceId, latestVersion } = await ok(api.post(`/v0/pages/${pageId}/audiences`, {}), 201);
    const started = Date.now();
    const version = await answer(writer, 'wait_for_draft', {
      page_id: pageId,
      audience_id: audienceId,
      version_id: latestVersion.versionId,
      timeoutSeconds: 1,
    });
    expect(version.state).toBe('queued');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(
      await refusal(writer, 'wait_for_draft', {
        page_id: pageId,
        audience_id: audienceId,
        timeoutSeconds: 301,
      }),
    ).toMatch(/^\/timeoutSeconds: must be .*300/m);
  });
});

describe('a read-only key', () => {
  it('is given the read tools only, wait_for_draft among them', async () => {
    const api = await server.newTenant();
    const { apiKey } = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    const reader = await agent(apiKey);
    const { tools } = await reader.listTools();
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['wait_for_draft', 'get_page', 'get_lift']));
    for (const write of [
      'create_page',
      'create_audience',
      'publish_audience',
      'edit_draft',
      'regenerate_audience',
    ])
      expect(names).not.toContain(write);
    expect(await refusal(reader, 'create_page', SAMPLE_PAGE)).toMatch(/no tool create_page/);
  });
});
