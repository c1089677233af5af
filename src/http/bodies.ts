import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { AppError, invalidField } from '../shared/errors.ts';

/**
 * Request bodies are JSON in UTF-8: bytes that are not valid UTF-8 are refused (400 invalid_json)
 * rather than stored with replacement characters, as is JSON that does not parse or that names
 * `__proto__` or `constructor.prototype`. JSON nested deeper than any request needs is refused
 * (400 validation_failed) before validation, whose checks recurse (uniqueItems compares items
 * with a recursive deep-equal that a few thousand levels overflow).
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Arrays and objects nested in one another a body may hold; the deepest request schema has 6. */
export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests arrays and objects more than `limit` deep; walked without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

const TOO_DEEP = `must not nest arrays and objects more than ${MAX_BODY_DEPTH} deep`;

type Parse = (
  request: FastifyRequest,
  text: string,
  done: (error: Error | null, value?: unknown) => void,
) => void;

function jsonParser(app: FastifyInstance) {
  const parseJson: Parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, bytes: Buffer, done: (error: Error | null, value?: unknown) => void) => {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return done(new AppError('invalid_json', 'The body is not valid UTF-8'));
    }
    if (text === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(new AppError('invalid_json', `The body is not valid JSON: ${error.message}`));
      if (nestedDeeperThan(value, MAX_BODY_DEPTH)) {
        return done(invalidField('/body', TOO_DEEP));
      }
      done(null, value);
    });
  };
}

const WITH_BODIES = new Set(['POST', 'PATCH', 'PUT']);

const noBodyIsEmpty: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined && WITH_BODIES.has(request.method)) request.body = {};
  done();
};

/**
 * JSON bodies, at most `limit` bytes; an empty body counts as none, so that actions accept `{}` or
 * nothing. That hook is given to the routes of methods with a body alone (when they are
 * registered), so a GET runs no hook for it. Call before routes are registered.
 */
export function acceptJsonBodies(app: FastifyInstance, limit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limit }, jsonParser(app));
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => WITH_BODIES.has(method))) return;
    const own = route.preValidation;
    route.preValidation = [noBodyIsEmpty, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  });
}

/** What a beacon's body may be sent as: JSON, or JSON as text/plain. */
const BEACON_MEDIA_TYPES = ['application/json', 'text/plain'];

/**
 * JSON sent as text/plain, as navigator.sendBeacon sends a string body, read like any JSON body, up
 * to the route's body limit. The routes' bodies declare both media types, so that the document says
 * what the server takes. Call before routes are registered.
 */
export function acceptBeaconBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser('text/plain', { parseAs: 'buffer' }, jsonParser(scope));
  scope.addHook('onRoute', (route) => {
    if (route.schema?.body) route.schema = { ...route.schema, consumes: BEACON_MEDIA_TYPES };
  });
}
