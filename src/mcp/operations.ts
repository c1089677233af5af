/**
 * The operations of the OpenAPI document a running server serves, as tools need them: where each
 * one is, and the JSON schemas of its input and of its answer. The schemas are read from the
 * document at start, not copied here, so that a change to the API (a new field, a stricter
 * pattern) reaches agents as is.
 */

export type Json = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON schema of an object: a tool's arguments, or its answer (MCP wants an object for both). */
export interface ObjectSchema {
  [key: string]: unknown;
  type: 'object';
  properties?: Record<string, Json>;
  required?: string[];
}

/** The schema of a tool's arguments, which always names them. */
export interface InputSchema extends ObjectSchema {
  properties: Record<string, Json>;
}

/** An argument the request carries in its path or query, by its name in the document. */
interface Parameter {
  name: string;
  in: 'path' | 'query';
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** As the document writes it: `/v0/pages/{page_id}`. */
  path: string;
  description: string;
  /** Path and query parameters and the JSON body's fields, side by side in one object. */
  inputSchema: InputSchema;
  /** The JSON its success answers. */
  outputSchema: ObjectSchema;
  parameters: Parameter[];
  hasBody: boolean;
}

/** Where an operation's arguments go in its request. */
export interface RequestParts {
  /** The operation's path with its path arguments in it, encoded: `/v0/pages/page_…`. */
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a reference inside the document (`#/components/schemas/Page`) points at. */
function resolve(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`${ref} is not a reference inside the document`);
  let target: unknown = document;
  for (const token of ref.slice(2).split('/')) {
    const name = token.replaceAll('~1', '/').replaceAll('~0', '~');
    target = isObject(target) ? target[name] : undefined;
  }
  if (target === undefined) throw new Error(`the document's ${ref} names nothing`);
  return target;
}

/** `value` with every `$ref` replaced by what it points at: a tool's schema stands alone. */
function inline(document: Json, value: unknown, seen: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(document, item, seen));
  if (!isObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === 'string') {
    const name = ref.slice(ref.lastIndexOf('/') + 1);
    if (seen.includes(ref)) throw new Error(`schema ${name} refers to itself; it cannot be inlined`);
    return inline(document, resolve(document, ref), [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(document, item, seen)]));
}

function parameterProperty(parameter: Json): Json {
  const schema = parameter.schema as Json;
  const description = parameter.description ?? schema.description;
  return description === undefined ? schema : { ...schema, description };
}

/** The JSON schema of the operation's success (its 2xx answer), which must be an object. */
function successSchema(document: Json, operationId: string, operation: Json): ObjectSchema {
  const responses = Object.entries((operation.responses ?? {}) as Json);
  const success = responses.find(([status]) => /^2\d\d$/.test(status))?.[1] as Json | undefined;
  const json = (inline(document, success) as Json | undefined)?.content as Json | undefined;
  const schema = (json?.['application/json'] as Json | undefined)?.schema as Json | undefined;
  // MCP requires an object at the root of outputSchema; every operation a tool makes answers one.
  if (schema?.type !== 'object')
    throw new Error(`${operationId}: its success answers no JSON object, which a tool's output must be`);
  return schema as ObjectSchema;
}

/** The JSON body's schema, or undefined for an operation without a JSON body (an upload has none). */
function bodySchema(document: Json, operation: Json): Json | undefined {
  const content = (operation.requestBody as Json | undefined)?.content as Json | undefined;
  const json = content?.['application/json'] as Json | undefined;
  return json ? (inline(document, json.schema) as Json) : undefined;
}

function describe(document: Json, method: HttpMethod, path: string, operation: Json): Operation {
  const operationId = operation.operationId as string;
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  const add = (name: string, schema: Json, isRequired: boolean) => {
    if (name in properties) throw new Error(`${operationId}: two inputs are named ${name}`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  const parameters: Parameter[] = [];
  for (const parameter of inline(document, operation.parameters ?? []) as Json[]) {
    // Headers (Idempotency-Key) are the client's business, not the agent's.
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const name = parameter.name as string;
    parameters.push({ name, in: parameter.in });
    add(name, parameterProperty(parameter), parameter.required === true);
  }
  const body = bodySchema(document, operation);
  if (body) {
    if (body.type !== 'object' || !isObject(body.properties))
      throw new Error(`${operationId}: its body is not an object of named fields`);
    const bodyRequired = (operation.requestBody as Json).required === true;
    const requiredFields = (body.required ?? []) as string[];
    for (const [name, schema] of Object.entries(body.properties as Record<string, Json>)) {
      add(name, schema, bodyRequired && requiredFields.includes(name));
    }
  }
  return {
    operationId,
    method,
    path,
    description: (operation.description ?? operation.summary ?? '') as string,
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    outputSchema: successSchema(document, operationId, operation),
    parameters,
    hasBody: body !== undefined,
  };
}

/** The operation of the document with this operationId; an error when there is none. */
export function findOperation(document: Json, operationId: string): Operation {
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const method of METHODS) {
      const operation = (item as Json)[method];
      if (isObject(operation) && operation.operationId === operationId)
        return describe(document, method, path, operation);
    }
  }
  throw new Error(`the server's OpenAPI document has no operation ${operationId}`);
}

/**
 * Why `value` may not be a path argument, or undefined when it may. Encoded, a value
 * stays within its segment, except an empty one, `.` and `..`, which a URL resolves away (`..` as
 * an audience id would publish the page); a slash or a backslash, even encoded, is taken for a
 * separator by some servers and proxies. No id of the API is any of these.
 */
export function pathProblem(value: string): string | undefined {
  if (value === '' || value === '.' || value === '..' || /[/\\]/.test(value))
    return `must be an id, not ${JSON.stringify(value)}, which would call another endpoint`;
  return undefined;
}

/** The operation's path with the path arguments in it, each encoded; an error names a value that would change it. */
function pathWith(operation: Operation, values: Record<string, unknown>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_template, name: string) => {
    const value = String(values[name] ?? '');
    const problem = pathProblem(value);
    if (problem) throw new Error(`${name} ${problem}`);
    return encodeURIComponent(value);
  });
}

/** Sorts a tool's arguments into the request's path, query and body. */
export function requestParts(operation: Operation, args: Record<string, unknown>): RequestParts {
  const path: Record<string, unknown> = {};
  const parts: RequestParts = { path: '', query: {}, body: operation.hasBody ? {} : undefined };
  for (const [name, value] of Object.entries(args)) {
    const parameter = operation.parameters.find((candidate) => candidate.name === name);
    if (parameter?.in === 'path') path[name] = value;
    else if (parameter) parts.query[name] = value;
    else if (parts.body) parts.body[name] = value;
  }
  return { ...parts, path: pathWith(operation, path) };
}
