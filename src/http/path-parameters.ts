import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { unsafeTextAt } from './text.ts';

/**
 * A path parameter is an id and nothing else (decisions §9): a value that breaks its route's schema
 * (`..`, `.`, an empty one, an id of another kind) or holds text no database keeps names nothing,
 * and is 404 not_found. Refused before the body is read, so that neither the body nor its media type
 * changes that answer; after the key is checked (onRequest), so that a caller without one learns
 * nothing of the routes.
 */
export function refuseMalformedPathParameters(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const matchesSchema = request.getValidationFunction('params');
    if (unsafeTextAt(request.params, '/params') || (matchesSchema && !matchesSchema(request.params))) {
      return done(new AppError('not_found', 'A path parameter is malformed: nothing is found there'));
    }
    done(null, payload);
  });
}
