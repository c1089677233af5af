import { randomUUID } from 'node:crypto';
import { type ServerOptions, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { problemOf, sendProblem } from './errors.ts';

/**
 * What the server does with clients that are slow, malformed or oversized before any route runs:
 * each gets a problem+json answer with a decided code when one can still be sent, and none of them
 * can hold a socket for long.
 */

/** Headers must have arrived within this long of the connection's first byte of a request. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, body included, must have arrived within this long. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Longest request target (path and query) served; longer ones are 414 uri_too_long. */
export const MAX_URL_LENGTH = 8192;

/** Node's parser error; Fastify's ConnectionError type misdescribes rawPacket, which is a Buffer. */
interface ParserError extends Error {
  code?: string;
  rawPacket?: unknown;
}

function urlTooLong(): AppError {
  return new AppError('uri_too_long', `The request target is longer than ${MAX_URL_LENGTH} characters`);
}

/** The error a request that never reached a route gets, by what Node's parser said about it. */
function clientProblem(error: ParserError): AppError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError('request_timeout', 'The request did not arrive in time; the connection is closed');
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // The packet Node was parsing: when its request line alone is over the limit, the URL is to blame.
    const requestLineEnd = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.indexOf('\r\n') : 0;
    return requestLineEnd === -1 || requestLineEnd > MAX_URL_LENGTH
      ? urlTooLong()
      : new AppError('headers_too_large', 'The request headers are larger than the server accepts');
  }
  return new AppError('validation_failed', 'The request is not valid HTTP/1.1');
}

/** Answers a request Node could not parse or did not receive in time, then closes its socket. */
function onClientError(this: FastifyInstance, error: ParserError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = clientProblem(error);
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(problemOf(problem, randomUUID()));
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Fastify's own routing errors: a path that is not valid percent-encoding, or a parameter over 100
 * characters (no id is that long, so it names nothing).
 */
const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, request, reply) => {
  const code = (error as FastifyError).code;
  const known = code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_MAX_PARAM_LENGTH';
  const problem =
    request.url.length > MAX_URL_LENGTH
      ? urlTooLong()
      : known
        ? new AppError('not_found', 'A path parameter is malformed: nothing is found there')
        : new AppError('validation_failed', error.message);
  sendProblem(request, reply, problem);
};

/** Server options that bound what clients may do before a route runs. */
export function clientLimits(): Partial<FastifyServerOptions> & { http: ServerOptions } {
  return {
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Checked every second, so that a slow client is cut off within a second of its deadline.
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    frameworkErrors,
    clientErrorHandler: onClientError,
  };
}

/** Refuses a request target over MAX_URL_LENGTH (one Node's header limit has not already refused). */
export function refuseLongUrl(request: FastifyRequest): void {
  if (request.url.length > MAX_URL_LENGTH) throw urlTooLong();
}
