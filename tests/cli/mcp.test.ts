import fs from 'node:fs';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/mcp/catalogue.ts';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { tailor } from '../helpers/process.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

const BIN = path.resolve('bin/tailor.js');

/** A `tailor` process loads its sources first: on a busy machine that takes seconds. */
const PROCESS_TIMEOUT = 90_000;

let server: TestServer;
let api: Client;
let readOnlyKey: string;
const agents: McpClient[] = [];

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  readOnlyKey = (await issueKey(anyTables(server.database), api.tenantId, { readOnly: true })).apiKey;
});
afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  await server.close();
});

/** An MCP client that starts `tailor mcp` as a host would, with the key in its environment. */
async function agent(apiKey: string): Promise<McpClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { ...(process.env as Record<string, string>), TAILOR_URL: server.url, TAILOR_API_KEY: apiKey },
  });
  const client = new McpClient({ name: 'tailor-test', version: '1.0.0' });
  await client.connect(transport);
  agents.push(client);
  return client;
}

async function call(client: McpClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The JSON a tool answered; the test fails with the tool's error text when it failed. */
async function answer(client: McpClient, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await call(client, name, args);
  const [content] = result.content;
  const text = content?.type === 'text' ? content.text : '';
  expect(result.isError, text).toBeFalsy();
  expect(result.structuredContent).toEqual(JSON.parse(text));
  return result.structuredContent;
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const [content] = result.content;
  return content?.type === 'text' ? content.text : '';
}

const tool = (tools: Tool[], name: string) => tools.find((candidate) => candidate.name === name) as Tool;

describe('tailor mcp', () => {
  let writer: McpClient;
  beforeAll(async () => {
    writer = await agent(api.apiKey as string);
  });

  it('lists every tool of the catalogue, described, with the input schemas of the served document', async () => {
    const { tools } = await writer.listTools();
    expect(tools.map((t) => t.name)).toEqual(CATALOGUE.map((spec) => spec.name));
    const document = (await api.get('/v0/openapi.json')).body;
    const schemas = document.components.schemas;
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(20);
      expect(t.inputSchema.type).toBe('object');
      expect(JSON.stringify(t.inputSchema), t.name).not.toContain('$ref');
    }
    // Path parameters, query parameters and body fields side by side, each as the document says.
    const createAudience = tool(tools, 'create_audience').inputSchema;
    expect(createAudience.required).toEqual(['page_id']);
    expect(createAudience.properties?.personId).toEqual(schemas.AudienceCreate.properties.personId);
    expect(createAudience.properties?.holdoutPercent).toEqual(
      schemas.AudienceCreate.properties.holdoutPercent,
    );
    const editDraft = tool(tools, 'edit_draft').inputSchema;
    expect(editDraft.required).toEqual(['page_id', 'audience_id', 'version_id', 'content']);
    expect(editDraft.properties?.content).toEqual(schemas.AudienceVersionUpdate.properties.content);
    const lift = tool(tools, 'get_lift').inputSchema;
    expect(Object.keys(lift.properties ?? {})).toEqual(
      expect.arrayContaining(['page_id', 'audience_id', 'startDate', 'endDate']),
    );
    expect(tool(tools, 'create_page').annotations?.readOnlyHint).toBe(false);
    expect(tool(tools, 'get_page').annotations?.readOnlyHint).toBe(true);
  });

  it('docs/agents.md lists every tool with the effect its annotations say', async () => {
    const { tools } = await writer.listTools();
    const kind = ({ annotations }: Tool) => {
      if (annotations?.readOnlyHint) return 'read';
      if (!annotations?.destructiveHint) return 'create';
      return annotations.idempotentHint ? 'change' : 'rewrite';
    };
    const rows = fs
      .readFileSync('docs/agents.md', 'utf8')
      .matchAll(/^\| `([a-z_]+)` \| (read|create|change|rewrite) \|/gm);
    expect(Object.fromEntries([...rows].map(([, name, documented]) => [name, documented]))).toEqual(
      Object.fromEntries(tools.map((t) => [t.name, kind(t)])),
    );
  });

  it("runs the marketer's loop: find a person, make an audience, read and edit the draft, publish, link, read lift", async () => {
    await api.post('/v0/persons', { name: 'Grace Hopper', email: 'grace@cobol-systems.example' });
    await api.post('/v0/pages', { ...SAMPLE_PAGE, name: 'Autumn mainframe offer' });

    const persons = await answer(writer, 'find_persons', { query: 'grace' });
    expect(persons.items).toHaveLength(1);
    const { personId } = persons.items[0];
    const pages = await answer(writer, 'search_pages', { query: 'mainframe' });
    const { pageId } = pages.items[0];
    await answer(writer, 'publish_page', { page_id: pageId });

    const created = await answer(writer, 'create_audience', {
      page_id: pageId,
      personId,
      holdoutPercent: 20,
    });
    expect(created).toMatchObject({ personId, status: 'queued', holdoutPercent: 20 });
    const ids = { page_id: pageId, audience_id: created.audienceId };

    await server.worker().drain();
    const audience = await answer(writer, 'get_audience', ids);
    expect(audience.status).toBe('draft');
    const version = { ...ids, version_id: audience.latestVersion.versionId };
    const draft = await answer(writer, 'get_audience_version', version);
    expect(draft.state).toBe('draft');
    expect(draft.content.headline.length).toBeGreaterThan(0);

    const edited = await answer(writer, 'edit_draft', {
      ...version,
      content: { headline: 'Grace, your mainframe offer is ready' },
    });
    expect(edited.content.headline).toBe('Grace, your mainframe offer is ready');
    expect(edited.content.sections).toEqual(draft.content.sections);

    const published = await answer(writer, 'publish_audience', ids);
    expect(published.status).toBe('published');
    const link = await answer(writer, 'create_page_link', {
      path: '/grace',
      target: { targetType: 'audience', audienceId: created.audienceId },
    });
    expect(link.url).toMatch(/\/grace$/);
    expect((await answer(writer, 'list_page_links', { audienceId: created.audienceId })).items).toHaveLength(
      1,
    );

    const lift = await answer(writer, 'get_lift', ids);
    expect(lift).toMatchObject({
      audienceId: created.audienceId,
      holdoutPercent: 20,
      decision: 'keep_running',
    });
    expect((await answer(writer, 'list_leads', { pageId })).items).toEqual([]);
  });

  it('finds a person by email before it creates one', async () => {
    const args = { name: 'Alan Turing', email: 'alan@bletchley.example' };
    const first = await answer(writer, 'find_or_create_person', args);
    const again = await answer(writer, 'find_or_create_person', { ...args, email: 'ALAN@bletchley.example' });
    expect(again.personId).toBe(first.personId);
    expect((await answer(writer, 'find_persons', { email: args.email })).items).toHaveLength(1);
  });

  it("answers a refused request as a tool error with the problem's title, detail and fields", async () => {
    const missing = errorText(await call(writer, 'get_page', { page_id: 'page_00000000000000000000000000' }));
    expect(missing).toMatch(/^Not found \(404 not_found\): Page page_0+ not found$/);

    const { pageId } = (await api.post('/v0/pages', SAMPLE_PAGE)).body;
    const invalid = errorText(
      await call(writer, 'create_audience', {
        page_id: pageId,
        holdoutPercent: 90,
        personId: 'person_nobody',
      }),
    );
    expect(invalid).toBe(
      'Invalid arguments for create_audience; nothing was sent:\n/holdoutPercent: must be a whole number from 0 to 50',
    );
    const refused = errorText(
      await call(writer, 'create_audience', { page_id: pageId, personId: 'person_nobody' }),
    );
    expect(refused).toBe(
      'Validation failed (400 validation_failed): /body/personId is not a person of your tenant\n/personId: is not a person of your tenant',
    );

    expect(errorText(await call(writer, 'no_such_tool', {}))).toMatch(/no tool no_such_tool/);
  });
});

describe('tailor mcp with a read-only key', () => {
  it('lists the read tools only, and refuses the others', { timeout: PROCESS_TIMEOUT }, async () => {
    const reader = await agent(readOnlyKey);
    const { tools } = await reader.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['find_persons', 'get_audience_version', 'get_lift']));
    for (const write of ['create_audience', 'edit_draft', 'publish_audience', 'find_or_create_person'])
      expect(names).not.toContain(write);
    expect(errorText(await call(reader, 'create_page', SAMPLE_PAGE))).toMatch(/no tool create_page/);
    expect((await answer(reader, 'get_tenant', {})).key.readOnly).toBe(true);
  });
});

describe('tailor mcp without a usable key or server', () => {
  it('stops at once with a configuration error when the server refuses the key', {
    timeout: PROCESS_TIMEOUT,
  }, async () => {
    const refused = await tailor(['mcp'], { TAILOR_URL: server.url, TAILOR_API_KEY: 'tlr_not_a_key' });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toMatch(/TAILOR_API_KEY was refused by/);
    expect(refused.stdout).toBe('');
  });

  it('and when there is no key, or no server', { timeout: PROCESS_TIMEOUT }, async () => {
    const keyless = await tailor(['mcp'], { TAILOR_URL: server.url, TAILOR_API_KEY: '' });
    expect(keyless.code).toBe(78);
    expect(keyless.stderr).toMatch(/TAILOR_API_KEY is required/);
    const unreachable = await tailor(['mcp'], { TAILOR_URL: 'http://127.0.0.1:9', TAILOR_API_KEY: 'tlr_x' });
    expect(unreachable.code).toBe(78);
    expect(unreachable.stderr).toMatch(/TAILOR_URL http:\/\/127.0.0.1:9 could not be used/);
  });
});
