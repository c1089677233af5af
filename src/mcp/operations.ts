/**
 * The operations of the OpenAPI document a running server serves, as tools need them: where each
 * one is, and the JSON schema of its input. The schemas are read from the document at start, not
 * copied here, so that a change to the API (a new field, a stricter pattern) reaches agents as is.
 */

export type Json = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON schema of an object whose properties are the tool's arguments. */
export interface InputSchema {
  [key: string]: unknown;
  type: 'object';
  properties: Record<string, Json>;
  required?: string[];
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
  parameters: Parameter[];
  hasBody: boolean;
}

/** Where an operation's arguments go in its request. */
export interface RequestParts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

const METHODS: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];
const COMPONENT = '#/components/schemas/';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `schema` with every `$ref` to a component replaced by the component: a tool's schema stands alone. */
function inline(document: Json, schema: unknown, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(document, item, seen));
  if (!isObject(schema)) return schema;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.slice(COMPONENT.length);
    const component = ((document.components as Json).schemas as Json)[name];
    if (!ref.startsWith(COMPONENT) || component === undefined)
      throw new Error(`the document's ${ref} names no schema`);
    if (seen.includes(name)) throw new Error(`schema ${name} refers to itself; it cannot be inlined`);
    return inline(document, component, [...seen, name]);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, inline(document, value, seen)]),
  );
}

function parameterProperty(parameter: Json): Json {
  const schema = parameter.schema as Json;
  const description = parameter.description ?? schema.description;
  return description === undefined ? schema : { ...schema, description };
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
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    // Headers (Idempotency-Key) are the client's business, not the agent's.
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const name = parameter.name as string;
    parameters.push({ name, in: parameter.in });
    add(name, inline(document, parameterProperty(parameter)) as Json, parameter.required === true);
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

/** Sorts a tool's arguments into the request's path, query and body. */
export function requestParts(operation: Operation, args: Record<string, unknown>): RequestParts {
  const parts: RequestParts = { path: {}, query: {}, body: operation.hasBody ? {} : undefined };
  for (const [name, value] of Object.entries(args)) {
    const parameter = operation.parameters.find((candidate) => candidate.name === name);
    if (parameter) parts[parameter.in][name] = value;
    else if (parts.body) parts.body[name] = value;
  }
  return parts;
}
