import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode, invalidFields } from '../shared/errors.ts';
import { fieldErrors, type SchemaIssue } from '../shared/field-errors.ts';
import { sizeOf } from '../shared/rules-in-words.ts';

const TITLES: Record<ErrorCode, string> = {
  validation_failed: 'Validation failed',
  invalid_json: 'Invalid JSON',
  invalid_cursor: 'Invalid cursor',
  unauthorized: 'Unauthorized',
  missing_api_key: 'Missing API key',
  invalid_api_key: 'Invalid API key',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  request_timeout: 'Request timeout',
  conflict: 'Conflict',
  invalid_state: 'Invalid state',
  payload_too_large: 'Payload too large',
  uri_too_long: 'URI too long',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused',
  rate_limited: 'Too many requests',
  headers_too_large: 'Request headers too large',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
};

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/** An error as RFC 9457 problem details. */
export function problemOf(error: AppError, requestId: string) {
  return {
    type: `urn:tailor:error:${error.code}`,
    title: TITLES[error.code],
    status: error.status,
    detail: error.message,
    code: error.code,
    requestId,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** Sends an error as RFC 9457 problem details. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  return reply.code(error.status).type('application/problem+json').send(problemOf(error, request.id));
}

function validationError(error: FastifyError): AppError {
  const part = error.validationContext ?? 'body';
  const errors = fieldErrors((error.validation ?? []) as SchemaIssue[], part);
  return errors.length > 0
    ? invalidFields(errors)
    : new AppError('validation_failed', 'The request is invalid');
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
};

const STATUS_CODES = Object.fromEntries(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code]),
) as Record<number, ErrorCode>;

/** Turns anything thrown while serving a request into an AppError; undefined for a bug. */
export function toAppError(error: FastifyError | AppError, bodyLimit: number): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) return validationError(error);
  const code =
    FASTIFY_CODES[error.code] ??
    (error instanceof SyntaxError ? 'invalid_json' : undefined) ??
    STATUS_CODES[error.statusCode ?? 500];
  if (!code || code === 'internal') return undefined;
  const detail =
    code === 'payload_too_large' ? `The request body is larger than ${sizeOf(bodyLimit)}` : error.message;
  return new AppError(code, detail);
}

/** Seconds a client is asked to wait before retrying while the database is away. */
const UNAVAILABLE_RETRY_SECONDS = 2;

/**
 * One handler turns every error into problem+json. `isUnavailable` recognises a database that is
 * away: that is 503 unavailable with Retry-After, never a 500, and the next request tries again.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  isUnavailable: (error: unknown) => boolean,
): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const known = toAppError(error, request.routeOptions.bodyLimit);
    if (known) return sendProblem(request, reply, known);
    if (isUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('Retry-After', UNAVAILABLE_RETRY_SECONDS);
      return sendProblem(
        request,
        reply,
        new AppError('unavailable', 'The database cannot be reached right now; retry shortly'),
      );
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(
      request,
      reply,
      new AppError('internal', 'Something went wrong on our side; it has been logged'),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(
        request,
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`,
        ),
      );
    }
    return sendProblem(request, reply, new AppError('not_found', `No endpoint at ${request.method} ${path}`));
  });
}
