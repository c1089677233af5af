import type { Middleware } from 'openapi-fetch';
import { TailorPathParameterError } from './errors.js';

const PLACEHOLDER = /\{([^{}]+)\}/g;

/**
 * Checks each path parameter of a request before it is sent (decisions §9, "Path parameters are
 * ids"). openapi-fetch encodes a value with encodeURIComponent, which leaves `.` and `..` as they
 * are: the URL parser then reads them as dot segments, so `audience_id: '..'` would turn
 * `/v0/pages/P/audiences/{audience_id}/publish` into `/v0/pages/P/publish`. An empty value does the
 * same to a trailing segment, and a missing one is sent as the literal `{audience_id}`.
 */
export const refuseUnsafePathParameters: Middleware = {
  onRequest({ schemaPath, params }) {
    for (const [, name = ''] of schemaPath.matchAll(PLACEHOLDER)) {
      const value = params.path?.[name];
      if (!isSafeSegment(value)) throw new TailorPathParameterError(schemaPath, name, value);
    }
    return undefined;
  },
};

function isSafeSegment(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..';
}
