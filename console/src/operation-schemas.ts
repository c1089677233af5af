import type { operations } from '@tailor/client';
import type { FieldError } from '../../src/shared/errors.ts';
import type { Rules } from '../../src/shared/rules-in-words.ts';

/**
 * The schemas the API advertises for each operation, read from the OpenAPI document the server serves
 * (`/v0/openapi.json`, no key needed, the document the typed client is generated from), once per tab.
 * The console reads them here alone: a form states each input's limits from them before anything is
 * typed (components/forms.tsx), and every request is checked against them before it is sent
 * (`errorsBeforeSending`, which the client runs: api.ts), so that the console sends nothing the API
 * would refuse. Free of the DOM and of Preact, so that tests check it against the API itself.
 */

/** An operation of the API, by its `operationId` (`createPerson`). */
export type OperationId = keyof operations;

type Json = Record<string, unknown>;

/** What an operation takes and answers, as the OpenAPI document says, every reference resolved. */
export interface OperationSchema {
  /**
   * The schema of each part of a request the API checks, by the name its errors' pointers give the
   * part: `/body/name`, `/params/brand_id`, `/querystring/limit`. The parameters of the path and of the
   * query are each an object of them, every parameter's schema with the parameter's description.
   */
  parts: { body?: Rules & Json; params: Json; querystring: Json };
  /** The body's schema for each media type it may have (an upload's image types). */
  content: Record<string, Rules & Json>;
  /** The schema of a successful answer's JSON body (a topic's, whose `entries` say how many it holds). */
  answer?: Rules & Json;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; parameters?: Record<string, Json> };
}

const COMPONENT = /^#\/components\/(schemas|parameters)\//;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` with every `$ref` to a component replaced by the component. */
function resolved(document: Document, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(document, item));
  if (!isObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === 'string' && COMPONENT.test(ref)) {
    const [, kind, name] = ref.split('/').slice(1);
    const components = kind === 'schemas' ? document.components.schemas : document.components.parameters;
    return resolved(document, components?.[name ?? '']);
  }
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, resolved(document, child)]));
}

/** The parameters found `where` (`path`, `query`) as the object schema the API checks them as. */
function parametersIn(parameters: Parameter[], where: string): Json {
  const found = parameters.filter((parameter) => parameter.in === where);
  return {
    type: 'object',
    properties: Object.fromEntries(
      found.map(({ name, description, schema }) => [name, { ...schema, description }]),
    ),
    required: found.filter((parameter) => parameter.required).map((parameter) => parameter.name),
  };
}

function schemaOf(document: Document, operation: Operation): OperationSchema {
  const { parameters = [], requestBody, responses = {} } = resolved(document, operation) as Operation;
  const content = Object.fromEntries(
    Object.entries(requestBody?.content ?? {}).map(([type, media]) => [
      type,
      (media.schema ?? {}) as Rules & Json,
    ]),
  );
  const success = Object.entries(responses).find(([status]) => status.startsWith('2'))?.[1];
  return {
    parts: {
      body: content['application/json'],
      params: parametersIn(parameters, 'path'),
      querystring: parametersIn(parameters, 'query'),
    },
    content,
    answer: success?.content?.['application/json']?.schema as (Rules & Json) | undefined,
  };
}

/** The operation `operationId`, or the one at `method` and `path`, of the document `read`. */
export function operationIn(
  read: Document,
  wanted: { operationId: string } | { method: string; path: string },
): OperationSchema {
  for (const [path, pathItem] of Object.entries(read.paths)) {
    for (const [method, operation] of Object.entries(pathItem)) {
      const found =
        'operationId' in wanted
          ? operation.operationId === wanted.operationId
          : path === wanted.path && method === wanted.method.toLowerCase();
      if (found) return schemaOf(read, operation);
    }
  }
  throw new Error(`The API has no operation ${Object.values(wanted).join(' ')}`);
}

let document: Promise<Document> | undefined;

/** The OpenAPI document this server serves, read once per tab (a failed read is tried again). */
function theDocument(): Promise<Document> {
  if (!document) {
    document = fetch('/v0/openapi.json').then((answer) => {
      if (!answer.ok) throw new Error(`The API's description answered ${answer.status}`);
      return answer.json() as Promise<Document>;
    });
    document.catch(() => {
      document = undefined;
    });
  }
  return document;
}

export async function operationSchema(operationId: OperationId): Promise<OperationSchema> {
  return operationIn(await theDocument(), { operationId });
}

/** The members of a union other than null: what a nullable value is when it is set. */
function set(rules: Json): Json[] {
  const members = (rules.anyOf as Json[] | undefined) ?? [rules];
  return members.filter((member) => member.type !== 'null');
}

/**
 * The schema a JSON pointer names: into the request (`/body/actions/0/url`, through arrays' items and
 * nullable objects' members; `/params/brand_id`, `/querystring/startDate`) or into the answer
 * (`/answer/entries`).
 */
export function schemaAt(operation: OperationSchema, pointer: string): Rules | undefined {
  const [, part, ...steps] = pointer.split('/');
  let rules: Json | undefined =
    part === 'answer' ? operation.answer : operation.parts[part as keyof OperationSchema['parts']];
  for (const step of steps) {
    if (!rules) return undefined;
    const members = set(rules);
    const list = members.find((member) => isObject(member.items));
    const object = members.find((member) => isObject(member.properties));
    rules = /^\d+$/.test(step)
      ? (list?.items as Json | undefined)
      : ((object?.properties as Record<string, Json> | undefined)?.[step] ?? undefined);
  }
  return rules;
}

/** What a request holds, by the part of it the API checks. */
export interface RequestParts {
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
}

/**
 * What the API would refuse in `request`, in its words at its pointers: each part checked against
 * the operation's schema by TypeBox's interpreter (src/shared/schema-check.ts, loaded with the first
 * request: it is no part of the console's first script).
 */
export async function requestErrors(
  operation: OperationSchema,
  request: RequestParts,
): Promise<FieldError[]> {
  const { schemaErrors } = await import('../../src/shared/schema-check.ts');
  return (['params', 'querystring', 'body'] as const).flatMap((part) => {
    const schema = operation.parts[part];
    // As it goes out: a parameter left undefined is not sent at all.
    const value = request[part] === undefined ? undefined : JSON.parse(JSON.stringify(request[part]));
    return schema && value !== undefined ? schemaErrors(schema, value, part) : [];
  });
}

/**
 * What the API would refuse in the request about to be sent at `method` and `path` (as the document
 * writes it: `/v0/pages/{page_id}`), none when it holds to the operation's schemas.
 */
export async function errorsBeforeSending(
  method: string,
  path: string,
  request: RequestParts,
): Promise<FieldError[]> {
  return requestErrors(operationIn(await theDocument(), { method, path }), request);
}
