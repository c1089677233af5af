import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createTailorClient, type TailorClient, TailorProblem, unwrap } from '@tailor/client';
import { CATALOGUE, type ToolSpec } from './catalogue.ts';
import { findOperation, type Json, type Operation, requestParts } from './operations.ts';

export interface Connection {
  /** The server's address, without `/v0`. */
  baseUrl: string;
  apiKey: string;
}

/** The tools one API key may use, ready to answer an MCP client. */
export interface Toolbox {
  tools: Tool[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

const INSTRUCTIONS = `Tailor personalizes web pages: a page has audiences (one person, or one company), and each
audience gets its own version of the page, written by Tailor, which a page link serves. The usual
loop: find the person (find_persons, find_or_create_person) or company (search_accounts); find the
page (search_pages); create_audience; get_audience until its status is draft; read the draft
(get_audience_version) and edit_draft if needed; publish_audience; create_page_link to get the
address to share; later get_lift. Ids are opaque strings (person_…, page_…); errors say what to fix.
A read-only API key is given the read tools only.`;

/** A failed call as the agent reads it: the problem's title and detail, and the arguments to fix. */
function failure(error: unknown): CallToolResult {
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof TailorProblem) {
    const { title, status, code, detail } = error.problem;
    // The server points into the request (/body/name, /querystring/limit); the agent knows arguments.
    const fields = error.errors.map(
      (field) => `\n${field.path.replace(/^\/(body|querystring|params)(?=\/)/, '')}: ${field.message}`,
    );
    text = `${title} (${status} ${code}): ${detail}${fields.join('')}`;
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

function success(answer: unknown): CallToolResult {
  const isRecord = typeof answer === 'object' && answer !== null && !Array.isArray(answer);
  return {
    content: [{ type: 'text', text: JSON.stringify(answer ?? null) }],
    ...(isRecord ? { structuredContent: answer as Record<string, unknown> } : {}),
  };
}

/** Makes the operation's request with the tool's arguments and answers its JSON, or throws its problem. */
function caller(client: TailorClient, operation: Operation) {
  return async (args: Record<string, unknown>): Promise<unknown> => {
    const { path, query, body } = requestParts(operation, args);
    // The path and its arguments are the served document's: their types are known at run time only.
    const init = { params: { path, query }, body } as never;
    const result = await client.request(operation.method, operation.path as never, init);
    return unwrap(result);
  };
}

function toolOf(spec: ToolSpec, operation: Operation): Tool {
  return {
    name: spec.name,
    description: operation.description ? `${spec.description}\n\n${operation.description}` : spec.description,
    inputSchema: operation.inputSchema,
    // A read-only key may make GET requests only (src/http/auth.ts), so a GET is what reads.
    annotations: { readOnlyHint: operation.method === 'get' },
  };
}

async function servedDocument({ baseUrl, apiKey }: Connection): Promise<Json> {
  // Appended like the client appends its paths, so that an address behind a path prefix works too.
  const address = `${baseUrl.replace(/\/+$/, '')}/v0/openapi.json`;
  const response = await fetch(address, { headers: { 'x-api-key': apiKey } });
  if (!response.ok) throw new Error(`${baseUrl} answered ${response.status} for its OpenAPI document`);
  return (await response.json()) as Json;
}

/**
 * Asks the server who the key is and for its OpenAPI document, and makes the tools of the
 * catalogue from it: a read-only key gets the tools whose operation is a GET, and no other.
 * Throws the key's problem when the server refuses it.
 */
export async function openToolbox(connection: Connection): Promise<Toolbox> {
  const client = createTailorClient(connection);
  const tenant = await unwrap(client.GET('/v0/tenant'));
  const document = await servedDocument(connection);
  const entries = CATALOGUE.map((spec) => {
    const operation = findOperation(document, spec.operationId);
    const call = caller(client, operation);
    const run = (args: Record<string, unknown>) => (spec.run ? spec.run({ client, call }, args) : call(args));
    return { tool: toolOf(spec, operation), run };
  }).filter(({ tool }) => !tenant.key.readOnly || tool.annotations?.readOnlyHint);
  const byName = new Map(entries.map((entry) => [entry.tool.name, entry]));
  return {
    tools: entries.map(({ tool }) => tool),
    async call(name, args) {
      const entry = byName.get(name);
      if (!entry) return failure(`There is no tool ${name} for this API key; tools/list names them`);
      try {
        return success(await entry.run(args));
      } catch (error) {
        return failure(error);
      }
    },
  };
}

/** An MCP server whose tools are the toolbox's; connect it to a transport (stdio) to serve. */
export function mcpServer(toolbox: Toolbox): Server {
  const server = new Server(
    { name: 'tailor', version: '0.1.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolbox.tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    toolbox.call(request.params.name, request.params.arguments ?? {}),
  );
  return server;
}
