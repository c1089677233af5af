import { isDeepStrictEqual } from 'node:util';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { EMPTY_BODY_NAME } from './schemas.ts';

const DESCRIPTION = `Tailor keeps marketing pages, generates a personalized version of a page for each audience,
serves those versions through page links, measures each audience's sessions and reports what happened
through signed webhooks.

Every /v0 endpoint except /v0/public/* needs an API key in the \`x-api-key\` header. Errors are RFC 9457
problem details (\`application/problem+json\`) with a stable \`code\`. Timestamps are "+" followed by Unix
epoch milliseconds. Lists are keyset-paginated: pass \`nextCursor\` back as \`cursor\`. Every POST accepts an
\`Idempotency-Key\` header. Responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`.

Operations are named \`verbNoun\` (\`createPerson\`, \`listPersons\`, \`publishPage\`); every body is a named
schema under \`components.schemas\`; the \`webhooks\` section lists each event kind Tailor sends.`;

type Json = Record<string, unknown>;
/** A path item of the document's `webhooks` section: what Tailor POSTs to subscribers. */
export type WebhookPathItem = Json;

/*
 * Named schemas. A TypeBox schema with a `title` is a named shape: the document lists it once under
 * components.schemas by that title and refers to it by `$ref` wherever @fastify/swagger wrote it
 * out inline. Requests are still validated and answers serialized with the inline schemas, exactly as
 * before; only the document is folded. (Shared schemas added with `addSchema` would have to be
 * referenced by `$ref` in the routes, which the request validators, compiled by src/http/validation.ts
 * without them, cannot resolve, and would lose the handler types that TypeBox derives.)
 */

/** Keywords whose value is a map of subschemas, one subschema, or a list of them (JSON Schema 2020-12). */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_VALUES = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema without what @fastify/swagger moves to the media type when the schema is a whole body. */
const withoutExamples = ({ examples: _examples, example: _example, ...rest }: Json): Json => rest;

class SchemaNames {
  readonly schemas = new Map<string, Json>();

  /** `schema` with every named schema in it, itself included, replaced by a reference. */
  fold(schema: unknown): unknown {
    if (!isObject(schema)) return schema;
    const folded = this.foldChildren(schema);
    const name = folded.title;
    if (typeof name !== 'string') return folded;
    this.keep(name, folded);
    return { $ref: `#/components/schemas/${name}` };
  }

  private foldChildren(schema: Json): Json {
    const folded = { ...schema };
    for (const key of SCHEMA_MAPS) {
      const map = folded[key];
      if (isObject(map)) {
        folded[key] = Object.fromEntries(
          Object.entries(map).map(([name, value]) => [name, this.fold(value)]),
        );
      }
    }
    for (const key of SCHEMA_VALUES) if (isObject(folded[key])) folded[key] = this.fold(folded[key]);
    for (const key of SCHEMA_LISTS) {
      const list = folded[key];
      if (Array.isArray(list)) folded[key] = list.map((item) => this.fold(item));
    }
    return folded;
  }

  /** One shape per name: the same name on two different shapes is a mistake that must not reach clients. */
  private keep(name: string, schema: Json): void {
    const known = this.schemas.get(name);
    if (known && !isDeepStrictEqual(withoutExamples(known), withoutExamples(schema))) {
      throw new Error(`Two different schemas are named ${name} in the OpenAPI document`);
    }
    if (!known || (schema.examples && !known.examples)) this.schemas.set(name, schema);
  }
}

interface Operation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  parameters?: { schema?: unknown }[];
}

function foldMedia(names: SchemaNames, content: Record<string, { schema?: unknown }> | undefined): void {
  for (const media of Object.values(content ?? {})) media.schema = names.fold(media.schema);
}

/**
 * Folds an operation's schemas into named references. An action's body (the empty object) is
 * optional: the server takes no body, an empty one or `{}` alike.
 */
function foldOperation(names: SchemaNames, operation: Operation): void {
  const body = operation.requestBody;
  if (body) {
    const schema = body.content?.['application/json']?.schema;
    if (isObject(schema) && schema.title === EMPTY_BODY_NAME) body.required = false;
    foldMedia(names, body.content);
  }
  for (const response of Object.values(operation.responses ?? {})) foldMedia(names, response.content);
  for (const parameter of operation.parameters ?? []) parameter.schema = names.fold(parameter.schema);
}

/** The document @fastify/swagger built, with its named schemas under components and the webhooks added. */
function finishDocument(document: Json, webhooks: Record<string, WebhookPathItem>): Json {
  const names = new SchemaNames();
  const pathItems = [...Object.values(document.paths as Record<string, Json>), ...Object.values(webhooks)];
  for (const pathItem of pathItems) {
    for (const operation of Object.values(pathItem)) foldOperation(names, operation as Operation);
  }
  const sorted = [...names.schemas.entries()].sort(([a], [b]) => a.localeCompare(b));
  const components = document.components as Json;
  return {
    ...document,
    webhooks,
    components: {
      ...components,
      schemas: { ...(components.schemas as Json), ...Object.fromEntries(sorted) },
    },
  };
}

/**
 * The OpenAPI document, generated from the same schemas that validate requests, and its reference
 * page. `webhooks` documents the requests Tailor sends to subscribers, one entry per event kind.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  publicUrl: string,
  webhooks: Record<string, WebhookPathItem> = {},
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tailor API',
        version: '0',
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
      security: [{ apiKey: [] }],
    },
    transformObject: (built) =>
      finishDocument(
        ('openapiObject' in built ? built.openapiObject : built.swaggerObject) as Json,
        webhooks,
      ),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/v0/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
