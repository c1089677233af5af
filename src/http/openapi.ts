import { isDeepStrictEqual } from 'node:util';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { Answers, HEADERS, IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENCY_KEY_REF, RATE_LIMITED } from './answers.ts';
import { EMPTY_BODY_NAME, Problem } from './schemas.ts';

const DESCRIPTION = `Tailor keeps marketing pages, generates a personalized version of a page for each audience,
serves those versions through page links, measures each audience's sessions and reports what happened
through signed webhooks.

Every /v0 endpoint except /v0/public/* needs an API key in the \`x-api-key\` header. Errors are RFC 9457
problem details (\`application/problem+json\`) with a stable \`code\`. Timestamps are "+" followed by Unix
epoch milliseconds. Lists are keyset-paginated: pass \`nextCursor\` back as \`cursor\`. Path parameters are ids:
a value of another form is a 404. Responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and
\`RateLimit-Reset\`.

Operations are named \`verbNoun\` (\`createPerson\`, \`listPersons\`, \`publishPage\`); every body is a named
schema under \`components.schemas\`; the \`webhooks\` section lists each event kind Tailor sends.`;

/** The document's tags, each operation under one of them, in the order a reader meets them. */
const TAGS = [
  {
    name: 'Operations',
    description: 'Liveness and readiness probes for load balancers and orchestrators; no key.',
  },
  {
    name: 'Tenant',
    description:
      "The caller's tenant and key: its slug (for public page addresses) and whether the key is read-only.",
  },
  {
    name: 'Tenant domains',
    description:
      "A tenant's own hostnames for its pages, and the public check a TLS proxy asks before getting a certificate.",
  },
  {
    name: 'Accounts',
    description: 'Companies, identified by their canonical domain, with the persons linked to them.',
  },
  {
    name: 'Persons',
    description:
      'People, linked to an account by their email domain, and the log of notes and activity about each.',
  },
  {
    name: 'Pages',
    description: 'Marketing pages: their copy, actions and widgets; drafted, published, archived, restored.',
  },
  {
    name: 'Brands',
    description: "What a generated page may say and how it looks: a brand's voice, claims and logo.",
  },
  { name: 'Topics', description: 'Knowledge that personalization draws on, entry by entry.' },
  { name: 'Files', description: 'Uploaded images and their signed download links.' },
  { name: 'Assets', description: 'Named uses of files (a logo, an image), trashed and restored.' },
  {
    name: 'Audiences',
    description:
      "A page's audiences (a person or an account), the personalized versions generated for each, their drafts and publishing.",
  },
  { name: 'Page links', description: "The addresses at which visitors open an audience's page." },
  {
    name: 'Analytics',
    description: "How each audience's sessions go, and the lift of its personalized page over the baseline.",
  },
  {
    name: 'Form submissions',
    description: "What visitors sent through pages' action forms, and its enrichment.",
  },
  {
    name: 'Webhooks',
    description:
      'Signed event deliveries to subscribers: subscriptions, their secrets, tests, deliveries and retries.',
  },
  {
    name: 'Public',
    description:
      "What public pages use from visitors' browsers: no key, the page's signed token is the credential.",
  },
];

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

/**
 * A body that may be of several media types (an image upload, a beacon's JSON as text) names them in
 * a required Content-Type header parameter: generated clients then let the caller say which type it
 * sends, rather than fixing the first one listed.
 */
function declareContentType(operation: Json): void {
  const content = (operation.requestBody as { content?: Json } | undefined)?.content ?? {};
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length < 2) return;
  const parameter = {
    name: 'Content-Type',
    in: 'header',
    required: true,
    description: `The media type of the body: ${mediaTypes.join(', ')}`,
    schema: { type: 'string', enum: mediaTypes },
  };
  operation.parameters = [...((operation.parameters as unknown[]) ?? []), parameter];
}

/**
 * The overview's word on `Idempotency-Key`: exactly the POSTs that declare it (src/http/answers.ts
 * gives it to every keyed POST), and the POSTs that do not.
 */
function idempotencyOverview(paths: Record<string, Json>): string {
  const posts = Object.entries(paths).flatMap(([path, pathItem]) =>
    pathItem.post ? [{ path, operation: pathItem.post as Json }] : [],
  );
  const honours = ({ operation }: { operation: Json }) =>
    ((operation.parameters ?? []) as Json[]).some((parameter) => parameter.$ref === IDEMPOTENCY_KEY_REF);
  const listed = (chosen: typeof posts) =>
    chosen.map(({ path, operation }) => `- \`POST ${path}\` (\`${operation.operationId}\`)`).join('\n');
  const others = posts.filter((post) => !honours(post));
  return [
    'An `Idempotency-Key` header makes a POST safe to retry: the first answer is kept 24 hours and replayed to a retry with the same key and body. Exactly these POSTs honour it, each declaring the header:',
    listed(posts.filter(honours)),
    ...(others.length ? ['These POSTs, which take no API key, do not:', listed(others)] : []),
  ].join('\n\n');
}

/** Every operation under a tag the document describes: a tag named nowhere else is a mistake. */
function checkTags(path: string, method: string, operation: Json): void {
  const tags = (operation.tags ?? []) as string[];
  if (tags.length === 0 || tags.some((tag) => !TAGS.some((known) => known.name === tag))) {
    throw new Error(`${method.toUpperCase()} ${path} needs a tag of the document's TAGS, not ${tags}`);
  }
}

/**
 * The document @fastify/swagger built, with every answer completed (src/http/answers.ts), its named
 * schemas under components and the webhooks added.
 */
function finishDocument(document: Json, webhooks: Record<string, WebhookPathItem>): Json {
  const names = new SchemaNames();
  // Every error answer refers to it (src/http/answers.ts), rather than to a route's own copy.
  names.fold(Problem);
  const answers = new Answers();
  for (const [path, pathItem] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(pathItem)) {
      checkTags(path, method, operation as Json);
      answers.complete(method, operation as Json);
      declareContentType(operation as Json);
    }
  }
  const pathItems = [...Object.values(document.paths as Record<string, Json>), ...Object.values(webhooks)];
  for (const pathItem of pathItems) {
    for (const operation of Object.values(pathItem)) foldOperation(names, operation as Operation);
  }
  const sorted = [...names.schemas.entries()].sort(([a], [b]) => a.localeCompare(b));
  const components = document.components as Json;
  return {
    ...document,
    info: {
      ...(document.info as Json),
      description: `${DESCRIPTION}\n\n${idempotencyOverview(document.paths as Record<string, Json>)}`,
    },
    tags: TAGS,
    webhooks,
    components: {
      ...components,
      schemas: { ...(components.schemas as Json), ...Object.fromEntries(sorted) },
      responses: Object.fromEntries(Object.entries(answers.responses).sort(([a], [b]) => a.localeCompare(b))),
      headers: HEADERS,
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
    },
  };
}

/** Passes a route's config that the document needs on to its operation (see src/http/answers.ts). */
function transformRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  if (!schema || (schema as Json).hide) return { schema, url };
  return { schema: { ...schema, [RATE_LIMITED]: route.config?.rateLimited === true }, url };
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
        contact: { name: 'Tailor API reference', url: `${publicUrl}/docs` },
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: transformRoute,
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
