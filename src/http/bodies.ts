import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.ts';

/**
 * Request bodies are JSON in UTF-8: bytes that are not valid UTF-8 are refused (400 invalid_json)
 * rather than stored with replacement characters, as is JSON that does not parse or that names
 * `__proto__` or `constructor.prototype`.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
    parseJson(request, text, (error, value) =>
      error
        ? done(new AppError('invalid_json', `The body is not valid JSON: ${error.message}`))
        : done(null, value),
    );
  };
}

/** JSON bodies, at most `limit` bytes; an empty body counts as none, so that actions accept `{}` or nothing. */
export function acceptJsonBodies(app: FastifyInstance, limit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: limit }, jsonParser(app));
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && ['POST', 'PATCH', 'PUT'].includes(request.method)) request.body = {};
  });
}

/** JSON sent as text/plain, as navigator.sendBeacon sends a string body, read like any JSON body. */
export function acceptBeaconBodies(scope: FastifyInstance, limit: number): void {
  scope.addContentTypeParser('text/plain', { parseAs: 'buffer', bodyLimit: limit }, jsonParser(scope));
}
