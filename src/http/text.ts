import type { FastifyInstance } from 'fastify';
import { AppError, invalidField } from '../shared/errors.ts';

/**
 * Text that no database keeps as sent: U+0000 (PostgreSQL refuses it) and halves of a surrogate
 * pair (no UTF-8 can hold them). Refused everywhere, the same way on both databases: 400 in a body
 * or a query string, 404 in a path (a malformed id names nothing).
 */
function isUnsafe(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed();
}

function pointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Whether `value` is known safe without a walk: a string, nothing, or an object whose keys and
 * values are safe strings and no objects (path parameters, most query strings). Checked in place,
 * with none of the JSON pointers and pending pairs that unsafeTextAt makes for every value.
 */
function isFlatAndSafe(value: unknown): boolean {
  if (typeof value === 'string') return !isUnsafe(value);
  if (value === null || typeof value !== 'object') return true;
  if (Buffer.isBuffer(value)) return true;
  // for…in also sees inherited keys: at worst a value is walked that needed no walk.
  for (const key in value) {
    if (isUnsafe(key)) return false;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'string' ? isUnsafe(child) : child !== null && typeof child === 'object')
      return false;
  }
  return true;
}

/** The JSON pointer of the first unsafe string or key in `value`, under `root`; undefined when there is none. */
export function unsafeTextAt(value: unknown, root: string): string | undefined {
  if (isFlatAndSafe(value)) return undefined;
  const pending: [unknown, string][] = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      if (isUnsafe(item)) return path;
    } else if (item !== null && typeof item === 'object' && !Buffer.isBuffer(item)) {
      for (const [key, child] of Object.entries(item)) {
        const childPath = `${path}/${pointer(key)}`;
        if (isUnsafe(key)) return childPath;
        pending.push([child, childPath]);
      }
    }
  }
  return undefined;
}

const MESSAGE = 'must not contain U+0000 or an unpaired surrogate';
const ESCAPES = /(?:%[0-9a-f]{2})+/gi;

/**
 * The name of the first query parameter whose percent-escapes are not UTF-8. The query parser
 * would read them as U+FFFD and search for that; refused instead, as a body that is not UTF-8 is.
 */
function badlyEncodedParameter(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  for (const pair of url.slice(query + 1).split('&')) {
    for (const escapes of pair.match(ESCAPES) ?? []) {
      try {
        decodeURIComponent(escapes);
      } catch {
        return pair.split('=')[0] ?? '';
      }
    }
  }
  return undefined;
}

/** Refuses unsafe text in every request's path parameters, query string and body, before validation. */
export function refuseUnsafeText(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (unsafeTextAt(request.params, '/params'))
      throw new AppError('not_found', 'A path parameter is malformed: nothing is found there');
    const badlyEncoded = badlyEncodedParameter(request.url);
    if (badlyEncoded !== undefined)
      throw invalidField(`/querystring/${pointer(badlyEncoded)}`, 'must be percent-encoded UTF-8');
    const inQuery = unsafeTextAt(request.query, '/querystring');
    if (inQuery) throw invalidField(inQuery, MESSAGE);
    const inBody = unsafeTextAt(request.body, '/body');
    if (inBody) throw invalidField(inBody, MESSAGE);
    done();
  });
}
