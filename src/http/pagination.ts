import type { FastifyRequest } from 'fastify';
import type { Keyset, Paged, Paging } from '../db/paging.ts';
import { AppError } from '../shared/errors.ts';
import { stableStringify } from '../shared/stable-json.ts';
import { DEFAULT_PAGE_SIZE } from './schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    signer: import('../shared/signing.ts').Signer;
  }
}

export interface Envelope<T> {
  hasMore: boolean;
  items: T[];
  nextCursor: string | null;
  totalCount: number | null;
}

const PURPOSE = 'cursor';

/** A cursor only opens the next page of the same list: same endpoint, tenant and filters. */
function binding(request: FastifyRequest, filters: object): string {
  return `${request.method} ${request.routeOptions.url}|${request.caller?.tenantId ?? ''}|${stableStringify(filters)}`;
}

function encode(request: FastifyRequest, filters: object, next: Keyset): string {
  const payload = Buffer.from(JSON.stringify(next)).toString('base64url');
  return `${payload}.${request.server.signer.sign(PURPOSE, `${binding(request, filters)}|${payload}`)}`;
}

function decode(request: FastifyRequest, filters: object, cursor: string): Keyset {
  const [payload = '', signature = ''] = cursor.split('.');
  if (!request.server.signer.verify(PURPOSE, `${binding(request, filters)}|${payload}`, signature)) {
    throw new AppError(
      'invalid_cursor',
      'The cursor is malformed, altered, or belongs to another list or filter',
    );
  }
  return JSON.parse(Buffer.from(payload, 'base64url').toString()) as Keyset;
}

/**
 * Reads `cursor` and `limit` from the query, fetches the page and wraps it in the paged list
 * envelope. `filters` are the list's filter values: a cursor made under other filters is refused.
 */
export async function paginate<T>(
  request: FastifyRequest,
  filters: object,
  fetch: (page: Paging) => Promise<Paged<T>>,
): Promise<Envelope<T>> {
  const query = request.query as { cursor?: string; limit?: number };
  const page: Paging = { limit: query.limit ?? DEFAULT_PAGE_SIZE };
  if (query.cursor) page.after = decode(request, filters, query.cursor);
  const result = await fetch(page);
  return {
    hasMore: result.hasMore,
    items: result.items,
    nextCursor: result.next ? encode(request, filters, result.next) : null,
    totalCount: result.totalCount,
  };
}
