import { inlineSchemaReferences } from '../helpers/openapi.ts';
import type { JsonSchema } from './schema-arbitraries.ts';

/** One operation of the OpenAPI document, as the fuzz needs it. */
export interface Operation {
  method: string;
  /** The path as the document writes it, `{name}` for each parameter. */
  template: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  body: RequestBody | undefined;
  /** Needs no API key: its requests carry their own signed credential, or none. */
  isPublic: boolean;
  /** Its success is a JSON document (not bytes, a script or HTML). */
  answersJson: boolean;
  /** The statuses the document lists, as it writes them (`200`, `4XX`). */
  statuses: string[];
}

export interface Parameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface RequestBody {
  required: boolean;
  /** The media types the document accepts, JSON first when it is one. */
  contentTypes: string[];
  schema: JsonSchema;
  /** Raw bytes (an upload) rather than JSON. */
  binary: boolean;
}

interface DocumentParameter extends Parameter {
  in: string;
}

interface MediaType {
  schema?: JsonSchema;
}

interface DocumentOperation {
  parameters?: DocumentParameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocumentOperation>>;
}

function bodyOf(operation: DocumentOperation): RequestBody | undefined {
  const content = operation.requestBody?.content;
  if (!content) return undefined;
  const contentTypes = Object.keys(content).sort(
    (a, b) => Number(b.includes('json')) - Number(a.includes('json')),
  );
  const schema = content[contentTypes[0] ?? '']?.schema ?? {};
  return {
    required: operation.requestBody?.required ?? false,
    contentTypes,
    schema,
    binary: schema.format === 'binary',
  };
}

/** Whether the operation's success is JSON: declared so, and not a string (bytes, a script). */
function answersJson(operation: DocumentOperation): boolean {
  return Object.entries(operation.responses ?? {}).some(([status, response]) => {
    const json = response.content?.['application/json'];
    return status.startsWith('2') && json !== undefined && json.schema?.type !== 'string';
  });
}

/** Every operation of the document, in its order, with the named schemas it uses written out. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(inlineSchemaReferences(document).paths).flatMap(([template, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      return {
        method: method.toUpperCase(),
        template,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        body: bodyOf(operation),
        isPublic: !template.startsWith('/v0/') || (operation.security ?? [undefined]).length === 0,
        answersJson: answersJson(operation),
        statuses: Object.keys(operation.responses ?? {}),
      };
    }),
  );
}

export function nameOf(operation: Operation): string {
  return `${operation.method} ${operation.template}`;
}
