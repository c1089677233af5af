import { type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

/** Keyset pagination as stores see it: where to resume, and what a page holds. */

/** The sort-key values of the last item of the previous page. */
export type Keyset = (string | number)[];

export interface Paging {
  limit: number;
  after?: Keyset;
}

export interface Paged<T> {
  items: T[];
  hasMore: boolean;
  totalCount: number | null;
  /** Where the next page starts; present exactly when hasMore. */
  next?: Keyset;
}

/**
 * Builds a page from up to `limit + 1` rows fetched in sort order. `resume`, the key after which the
 * rows were not looked for (a search that reads a bounded stretch of the list), makes a page of
 * fewer rows go on from there.
 */
export function pagedOf<R>(
  rows: R[],
  request: Paging,
  keyOf: (row: R) => Keyset,
  totalCount: number | null,
  resume?: Keyset,
): Paged<R> {
  const full = rows.length > request.limit;
  const items = full ? rows.slice(0, request.limit) : rows;
  const last = items.at(-1);
  const next = full && last ? keyOf(last) : resume;
  return { items, hasMore: next !== undefined, totalCount, ...(next ? { next } : {}) };
}

export function mapPaged<R, T>(page: Paged<R>, present: (row: R) => T): Paged<T> {
  return { ...page, items: page.items.map(present) };
}

/**
 * The rows of one page of a list ordered by `key` descending (an id, which sorts by creation time,
 * or another unique number): those after the cursor's key, and one more than the limit, which tells
 * `pagedOf` whether more follow.
 */
export function descendingAfter<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  key: string,
  page: Paging,
): Promise<O[]> {
  const after = page.after?.[0];
  return query
    .$if(after !== undefined, (q) => q.where(sql<SqlBool>`${sql.ref(key)} < ${after}`))
    .orderBy(sql`${sql.ref(key)} desc`)
    .limit(page.limit + 1)
    .execute() as Promise<O[]>;
}
