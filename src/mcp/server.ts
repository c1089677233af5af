import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createTailorClient, type TailorClient, TailorProblem, unwrap } from '@tailor/client';
import { type ArgumentCheck, argumentCheck, argumentPointer } from './arguments.ts';
import { ANNOTATIONS, CATALOGUE, type ToolContext, type ToolSpec } from './catalogue.ts';
import { CreateKeys } from './keys.ts';
import { findOperation, type InputSchema, type Json, type Operation, requestParts } from './operations.ts';

export interface Connection {
  /** The server's address, without `/v0`. */
  baseUrl: string;
  apiKey: string;
}

/** What a call has of the MCP request that made it. */
export type CallContext = Pick<ToolContext, 'progress' | 'signal'>;

/** The tools one API key may use, ready to answer an MCP client. */
export interface Toolbox {
  tools: Tool[];
  call(name: string, args: Record<string, unknown>, context: CallContext): Promise<CallToolResult>;
}

const INSTRUCTIONS = `Tailor personalizes web pages: a page has audiences (one person, or one company), and each
audience gets its own version of the page, written by Tailor, which a page link serves. The usual
loop: find the person (find_persons, find_or_create_person) or company (search_accounts); find the
page (search_pages); create_audience; wait_for_draft, which answers the draft; edit_draft if
needed; publish_audience; create_page_link to get the address to share; later get_lift. Ids are
opaque strings (person_…, page_…); errors say what to fix. A read-only API key is given the read
tools only.`;

/** A failed call as the agent reads it: the problem's title and detail, and the arguments to fix. */
function failure(error: unknown): CallToolResult {
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof TailorProblem) {
    const { title, status, code, detail } = error.problem;
    // The server points into the request (/body/name, /querystring/limit); the agent knows arguments.
    const fields = error.errors.map((field) => `\n${argumentPointer(field.path)}: ${field.message}`);
    text = `${title} (${status} ${code}): ${detail}${fields.join('')}`;
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Arguments the tool's schema refuses, named before anything is sent, as the MCP specification asks. */
function refusal(name: string, problems: string[]): CallToolResult {
  const text = `Invalid arguments for ${name}; nothing was sent:\n${problems.join('\n')}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The answer as text, for any model, and as the structured content its output schema describes. */
function success(answer: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(answer) }],
    structuredContent: answer as Record<string, unknown>,
  };
}

/**
 * Makes the operation's request with the tool's arguments and answers its JSON, or throws its
 * problem. A creating tool's request carries its Idempotency-Key.
 */
function caller(client: TailorClient, keys: CreateKeys, spec: ToolSpec, operation: Operation) {
  const send = async (args: Record<string, unknown>, headers?: Record<string, string>) => {
    const { path, query, body } = requestParts(operation, args);
    // The path is the served document's: its type is known at run time only.
    const init = { params: { query }, body, headers } as never;
    return unwrap(client.request(operation.method, path as never, init));
  };
  if (spec.effect !== 'create') return (args: Record<string, unknown>) => send(args);
  return (args: Record<string, unknown>) =>
    keys.send(spec.name, args, (key) => send(args, { 'Idempotency-Key': key }));
}

/** The operation's arguments, with those the tool makes optional or adds. */
function inputSchemaOf(spec: ToolSpec, operation: Operation): InputSchema {
  const { optional = [], added = {} } = spec.input ?? {};
  const required = (operation.inputSchema.required ?? []).filter((name) => !optional.includes(name));
  return {
    type: 'object',
    properties: { ...operation.inputSchema.properties, ...added },
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function toolOf(spec: ToolSpec, operation: Operation): Tool {
  // A read-only key may make GET requests only (src/http/auth.ts): a tool that reads must make one.
  if ((spec.effect === 'read') !== (operation.method === 'get'))
    throw new Error(
      `${spec.name} ${spec.effect}s, but its operation ${operation.operationId} is a ${operation.method}`,
    );
  return {
    name: spec.name,
    description: operation.description ? `${spec.description}\n\n${operation.description}` : spec.description,
    inputSchema: inputSchemaOf(spec, operation),
    outputSchema: operation.outputSchema,
    annotations: ANNOTATIONS[spec.effect],
  };
}

interface Entry {
  tool: Tool;
  check: ArgumentCheck;
  run(args: Record<string, unknown>, context: CallContext): Promise<unknown>;
}

function entryOf(client: TailorClient, keys: CreateKeys, spec: ToolSpec, operation: Operation): Entry {
  const tool = toolOf(spec, operation);
  const call = caller(client, keys, spec, operation);
  const pathArguments = operation.parameters.filter((parameter) => parameter.in === 'path');
  return {
    tool,
    check: argumentCheck(
      tool.inputSchema as InputSchema,
      pathArguments.map(({ name }) => name),
    ),
    run: (args, context) => (spec.run ? spec.run({ client, call, ...context }, args) : call(args)),
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
 * catalogue from it, each with its argument check compiled: a read-only key gets the tools that
 * read, and no other. Throws the key's problem when the server refuses it.
 */
export async function openToolbox(connection: Connection): Promise<Toolbox> {
  const client = createTailorClient(connection);
  const tenant = await unwrap(client.GET('/v0/tenant'));
  const document = await servedDocument(connection);
  const keys = new CreateKeys();
  const entries = CATALOGUE.map((spec) =>
    entryOf(client, keys, spec, findOperation(document, spec.operationId)),
  ).filter(({ tool }) => !tenant.key.readOnly || tool.annotations?.readOnlyHint);
  const byName = new Map(entries.map((entry) => [entry.tool.name, entry]));
  return {
    tools: entries.map(({ tool }) => tool),
    async call(name, args, context) {
      const entry = byName.get(name);
      if (!entry) return failure(`There is no tool ${name} for this API key; tools/list names them`);
      const problems = entry.check(args);
      if (problems.length > 0) return refusal(name, problems);
      try {
        return success(await entry.run(args, context));
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
  server.setRequestHandler(CallToolRequestSchema, (request, { signal, sendNotification }) => {
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    // Progress only counts up (the specification's rule); the message says where the call is.
    const report = async (message: string) => {
      if (progressToken === undefined) return;
      progress += 1;
      await sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, message },
      });
    };
    return toolbox.call(request.params.name, request.params.arguments ?? {}, { signal, progress: report });
  });
  return server;
}
