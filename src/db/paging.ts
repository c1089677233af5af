import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

/** Keyset pagination as stores see it: where to resume, and what a page holds. */

/** The sort-key values of the last item of the previous page. */
export type Keyset = (string | number)[];

export interface PageRequest {
  limit: number;
  after?: Keyset;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  totalCount: number | null;
  /** Where the next page starts; present exactly when hasMore. */
  next?: Keyset;
}

/** Builds a page from up to `limit + 1` rows fetched in sort order. */
export function pageOf<R>(
  rows: R[],
  request: PageRequest,
  keyOf: (row: R) => Keyset,
  totalCount: number | null,
): Page<R> {
  const hasMore = rows.length > request.limit;
  const items = hasMore ? rows.slice(0, request.limit) : rows;
  const last = items.at(-1);
  return { items, hasMore, totalCount, ...(hasMore && last ? { next: keyOf(last) } : {}) };
}

export function mapPage<R, T>(page: Page<R>, present: (row: R) => T): Page<T> {
  return { ...page, items: page.items.map(present) };
}

/**
 * The rows of one page of a list ordered by `key` descending (an id, which sorts by creation time,
 * or another unique number): those after the cursor's key, and one more than the limit, which tells
 * `pageOf` whether more follow.
 */
export function descendingAfter<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  key: string,
  page: PageRequest,
): Promise<O[]> {
  const after = page.after?.[0];
  return query
    .$if(after !== undefined, (q) => q.where(sql<SqlBool>`${sql.ref(key)} < ${after}`))
    .orderBy(sql`${sql.ref(key)} desc`)
    .limit(page.limit + 1)
    .execute() as Promise<O[]>;
}
