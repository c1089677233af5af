/*
 * What the OpenAPI document says about every answer beyond its success body (decisions §9, "the
 * document says everything the server does"): each error status an operation can answer, as an
 * application/problem+json Problem; the headers the server sends; the Idempotency-Key parameter.
 * It is derived once, here, from what an operation is (keyed or public, rate-limited, its method,
 * its path parameters and body), plus the statuses and headers a route names itself in its response
 * map, so that no route repeats the statuses and headers every operation shares.
 */

type Json = Record<string, unknown>;

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}

export interface DocumentedOperation {
  security?: unknown[];
  parameters?: { in?: string; name?: string }[];
  requestBody?: unknown;
  responses?: Record<string, Response>;
}

/** Route config: the route's requests count against a rate limit, per key or per client address. */
declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimited?: boolean;
  }
}

/**
 * The operation extension through which a route's config reaches the document (set by the swagger
 * transform in src/http/openapi.ts, removed here).
 */
export const RATE_LIMITED = 'x-rate-limited';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };
const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Every error status the server answers: its name in components.responses and the codes that go with it. */
const ERRORS: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      '`validation_failed` (a field, parameter or header breaks its rule; `errors` names each), `invalid_json` or `invalid_cursor`',
  },
  401: { name: 'Unauthorized', description: '`missing_api_key` or `invalid_api_key` (unknown or revoked)' },
  403: { name: 'Forbidden', description: '`forbidden`: a read-only key may only make GET requests' },
  404: {
    name: 'NotFound',
    description: "`not_found`: nothing of the caller's tenant at this address (a malformed id included)",
  },
  408: {
    name: 'RequestTimeout',
    description: '`request_timeout`: the request did not arrive in time; the connection is closed',
  },
  409: {
    name: 'Conflict',
    description:
      '`conflict` (a retry while the first request with its Idempotency-Key still runs, or a unique value taken) or `invalid_state` (the current state forbids the action; `detail` names it)',
  },
  413: { name: 'PayloadTooLarge', description: "`payload_too_large`: the body is over the endpoint's limit" },
  414: { name: 'UriTooLong', description: '`uri_too_long`: the request target is over 8,192 characters' },
  415: {
    name: 'UnsupportedMediaType',
    description: '`unsupported_media_type`: the body is not of a type this endpoint takes',
  },
  422: {
    name: 'IdempotencyKeyReused',
    description: '`idempotency_key_reused`: the Idempotency-Key was used with another request',
  },
  429: { name: 'TooManyRequests', description: '`rate_limited`: retry after `Retry-After` seconds' },
  431: {
    name: 'HeadersTooLarge',
    description: "`headers_too_large`: the request headers are over the server's limit",
  },
  500: {
    name: 'InternalError',
    description: '`internal`: a bug, logged with the request id; never a stack trace',
  },
  503: {
    name: 'Unavailable',
    description:
      '`unavailable`: the database cannot be reached or the server is shutting down; retry shortly',
  },
};

/** Answered by the server before any route runs: no rate limit has counted the request yet. */
const BEFORE_ROUTING = [408, 414, 431];

/** The response headers the document declares, once each under components.headers. */
export const HEADERS: Record<string, Json> = {
  'RateLimit-Limit': {
    description: 'Requests the limit allows in its window (sent while rate limits are on)',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the window',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window is full again',
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying: on every 429, and on a 503 while the database is away',
    schema: { type: 'integer', minimum: 1 },
  },
  Location: {
    description: 'The address of the created resource',
    required: true,
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: 'true when this is the kept answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': {
    description: 'How to authenticate: `ApiKey header="x-api-key"`',
    required: true,
    schema: { type: 'string' },
  },
  ETag: {
    description: 'The version of the representation, for If-None-Match',
    required: true,
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: 'How long and by whom the answer may be kept',
    required: true,
    schema: { type: 'string' },
  },
};

/** Where an operation refers to the Idempotency-Key parameter, under components.parameters. */
export const IDEMPOTENCY_KEY_REF = '#/components/parameters/IdempotencyKey';

/** The request header that makes a POST idempotent (decisions §2), once under components.parameters. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: the first answer is kept 24 h and replayed to a retry with the same key and request (with `Idempotent-Replayed: true`); the same key with another request is 422, a retry while the first still runs is 409.',
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7e][\\x20-\\x7e]{0,254}$',
    description:
      'A key such as 7c4f3a52-0e8b-4d8e-9b6a-2f1c9d3e5a10: 1 to 255 printable ASCII characters, not starting with a space',
    examples: ['7c4f3a52-0e8b-4d8e-9b6a-2f1c9d3e5a10'],
  },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

function headersOf(names: string[]): Record<string, unknown> | undefined {
  return names.length ? Object.fromEntries(names.map((name) => [name, headerRef(name)])) : undefined;
}

/** The error statuses that `operation` at `method` can answer, besides those its route names. */
function commonErrors(method: string, operation: DocumentedOperation, rateLimited: boolean): number[] {
  const keyed = operation.security === undefined;
  const statuses = [400, 408, 414, 431, 500, 503];
  if (keyed) statuses.push(401);
  // A change can meet a state that forbids it, or a unique value taken, in every resource.
  if (keyed && method !== 'get') statuses.push(403, 409);
  if (operation.parameters?.some((parameter) => parameter.in === 'path')) statuses.push(404);
  if (operation.requestBody) statuses.push(413, 415);
  if (keyed && method === 'post') statuses.push(422);
  if (rateLimited) statuses.push(429);
  return statuses;
}

/** A route's own headers (ETag, Cache-Control…) as references to their one definition, then the shared ones. */
function withHeaders(response: Response, names: string[]): Response {
  const own = Object.keys(response.headers ?? {});
  const unknown = own.filter((name) => !(name in HEADERS));
  if (unknown.length)
    throw new Error(`Response headers without a definition in src/http/answers.ts: ${unknown}`);
  const headers = headersOf([...new Set([...own, ...names])]);
  return { ...response, ...(headers ? { headers } : {}) };
}

const isError = (status: string) => /^[45]/.test(status);

/** How the answers of an operation differ from those of another: which headers they carry. */
interface Variant {
  rateLimited: boolean;
  idempotent: boolean;
}

/**
 * The answers of the operations of one document. Error answers are shared under
 * components.responses, one per status and variant (`NotFound`, `NotFoundRateLimited`,
 * `NotFoundIdempotent`), so that the document states each once.
 */
export class Answers {
  readonly responses: Record<string, Response> = {};

  /**
   * Completes the answers of one operation of the document, in place: every error status it can
   * answer as a problem (ranges such as `4XX` replaced by the statuses they stand for), the headers
   * of each answer, and the Idempotency-Key parameter of a keyed POST.
   */
  complete(method: string, operation: DocumentedOperation & Json): void {
    const rateLimited = operation[RATE_LIMITED] === true;
    delete operation[RATE_LIMITED];
    const variant = { rateLimited, idempotent: operation.security === undefined && method === 'post' };
    const declared = Object.entries(operation.responses ?? {});
    const named = declared.filter(([status]) => /^[45]\d\d$/.test(status)).map(([status]) => Number(status));
    const statuses = [...new Set([...commonErrors(method, operation, rateLimited), ...named])];
    const responses: Record<string, unknown> = {};
    for (const [status, response] of declared) {
      if (isError(status)) continue;
      const shared = sharedHeaders(variant);
      responses[status] = withHeaders(response, status === '201' ? ['Location', ...shared] : shared);
    }
    for (const status of statuses.sort((a, b) => a - b)) responses[status] = this.errorRef(status, variant);
    operation.responses = responses as Record<string, Response>;
    if (variant.idempotent) {
      operation.parameters = [
        ...(operation.parameters ?? []),
        { $ref: IDEMPOTENCY_KEY_REF } as { in?: string },
      ];
    }
  }

  private errorRef(status: number, variant: Variant): { $ref: string } {
    const error = ERRORS[status];
    if (!error) throw new Error(`No description of a ${status} answer in src/http/answers.ts`);
    const early = BEFORE_ROUTING.includes(status);
    const suffix = early ? '' : variant.idempotent ? 'Idempotent' : variant.rateLimited ? 'RateLimited' : '';
    const name = `${error.name}${suffix}`;
    const own =
      status === 401 ? ['WWW-Authenticate'] : status === 429 || status === 503 ? ['Retry-After'] : [];
    const headers = headersOf([...(early ? [] : sharedHeaders(variant)), ...own]);
    this.responses[name] ??= {
      description: error.description,
      ...(headers ? { headers } : {}),
      content: { [PROBLEM_MEDIA_TYPE]: { schema: PROBLEM_REF } },
    };
    return { $ref: `#/components/responses/${name}` };
  }
}

function sharedHeaders({ rateLimited, idempotent }: Variant): string[] {
  return [
    ...(rateLimited ? ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] : []),
    ...(idempotent ? ['Idempotent-Replayed'] : []),
  ];
}
