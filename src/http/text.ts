import type { FastifyInstance } from 'fastify';
import { invalidField } from '../shared/errors.ts';

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

/** Where a value lies: its key in the place of its parent, the root's place without one. */
interface Place {
  parent: Place | undefined;
  key: string;
}

function pathOf(place: Place): string {
  return place.parent ? `${pathOf(place.parent)}/${pointer(place.key)}` : place.key;
}

/**
 * Whether `value` is an object of strings alone, none of them or their keys unsafe: what path
 * parameters, most query strings and many bodies are, checked without the walk's pending places.
 */
function isFlatAndSafe(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== 'string' || isUnsafe(key) || isUnsafe(item)) return false;
  }
  return true;
}

/**
 * The JSON pointer of the first unsafe string or key in `value`, under `root`; undefined when there
 * is none. The pointer is written only for what is found: every request walks its body, and nearly
 * every body has nothing to find.
 */
export function unsafeTextAt(value: unknown, root: string): string | undefined {
  if (value === undefined || isFlatAndSafe(value)) return undefined;
  const pending: [unknown, Place][] = [[value, { parent: undefined, key: root }]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, place] = next;
    if (typeof item === 'string') {
      if (isUnsafe(item)) return pathOf(place);
    } else if (item !== null && typeof item === 'object' && !Buffer.isBuffer(item)) {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        const child = { parent: place, key };
        if (isUnsafe(key)) return pathOf(child);
        pending.push([(item as Record<string, unknown>)[key], child]);
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

/**
 * Refuses unsafe text in every request's query string and body, before validation (path parameters:
 * src/http/path-parameters.ts).
 */
export function refuseUnsafeText(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
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
