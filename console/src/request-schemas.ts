import type { operations } from '@tailor/client';
import { useEffect, useState } from 'preact/hooks';
import type { Rules } from '../../src/shared/rules-in-words.ts';

/** An operation of the API, by its `operationId` (`createPerson`). */
export type OperationId = keyof operations;

type Json = Record<string, unknown>;

/** What an operation takes, as the OpenAPI document says it: the rules a form states beside its inputs. */
export interface RequestSchema {
  /** The JSON body's schema, every reference resolved; undefined for an operation without one. */
  body?: Rules & Json;
  /** Each path, query and header parameter's schema by its name, with the parameter's description. */
  parameters: Record<string, Rules & Json>;
  /** The body's schema for each media type it may have (an upload's image types). */
  content: Record<string, Rules & Json>;
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; description?: string; schema?: Json }[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
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

function requestOf(document: Document, operation: Operation): RequestSchema {
  const { parameters = [], requestBody } = resolved(document, operation) as Operation;
  const content = Object.fromEntries(
    Object.entries(requestBody?.content ?? {}).map(([type, media]) => [
      type,
      (media.schema ?? {}) as Rules & Json,
    ]),
  );
  return {
    body: content['application/json'],
    parameters: Object.fromEntries(
      parameters.map(({ name, description, schema }) => [name, { ...schema, description } as Rules & Json]),
    ),
    content,
  };
}

let document: Promise<Document> | undefined;

/**
 * The OpenAPI document this server serves (`/v0/openapi.json`, no key needed), read once per tab: the
 * console states each input's rules from the same schemas the API holds requests to, as the MCP server
 * reads its tools from it.
 */
function theDocument(): Promise<Document> {
  if (!document) {
    document = fetch('/v0/openapi.json').then((answer) => {
      if (!answer.ok) throw new Error(`The API's description answered ${answer.status}`);
      return answer.json() as Promise<Document>;
    });
    // A failed read is tried again by the next form rather than kept.
    document.catch(() => {
      document = undefined;
    });
  }
  return document;
}

export async function requestSchema(operationId: OperationId): Promise<RequestSchema> {
  const read = await theDocument();
  for (const pathItem of Object.values(read.paths)) {
    for (const operation of Object.values(pathItem)) {
      if (operation.operationId === operationId) return requestOf(read, operation);
    }
  }
  throw new Error(`The API has no operation ${operationId}`);
}

/** The request schema of `operationId`, once the document is read; undefined until then, or without one. */
export function useRequestSchema(operationId: OperationId | undefined): RequestSchema | undefined {
  const [schema, setSchema] = useState<RequestSchema | undefined>(undefined);
  useEffect(() => {
    if (!operationId) return;
    let current = true;
    requestSchema(operationId)
      .then((found) => current && setSchema(found))
      // Without the document a form still works: its inputs just say no limits before the API does.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [operationId]);
  return schema;
}

/** The members of a union other than null: what a nullable value is when it is set. */
function set(rules: Json): Json[] {
  const members = (rules.anyOf as Json[] | undefined) ?? [rules];
  return members.filter((member) => member.type !== 'null');
}

/**
 * The schema a JSON pointer into the request names: `/body/actions/0/url` (through arrays' items and
 * nullable objects' members), `/params/brand_id`, `/querystring/startDate`.
 */
export function schemaAt(request: RequestSchema, pointer: string): Rules | undefined {
  const [, part, ...steps] = pointer.split('/');
  if (part !== 'body') return steps.length === 1 ? request.parameters[steps[0] ?? ''] : undefined;
  let rules: Json | undefined = request.body;
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
