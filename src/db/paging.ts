import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

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

/** A column a list is sorted by, and which way. */
export interface SortKey {
  column: string;
  direction: 'asc' | 'desc';
}

/** Rows past `values` in the order of `keys[from…]`: lexicographic, each key breaking the previous one's ties. */
function pastKeyset(keys: readonly SortKey[], values: Keyset, from: number): RawBuilder<SqlBool> {
  const key = keys[from] as SortKey;
  const value = values[from];
  const beyond = sql<SqlBool>`${sql.ref(key.column)} ${sql.raw(key.direction === 'asc' ? '>' : '<')} ${value}`;
  if (from === keys.length - 1) return beyond;
  return sql<SqlBool>`(${beyond} or (${sql.ref(key.column)} = ${value} and ${pastKeyset(keys, values, from + 1)}))`;
}

/**
 * The rows of one page of a list sorted by `keys`, the last of which is unique (an id): those after
 * the cursor's keyset, and one more than the limit, which tells `pagedOf` whether more follow. With
 * two keys or more, the first key alone also bounds the range an index on the keys reads.
 */
export function keysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  keys: readonly SortKey[],
  page: Paging,
): Promise<O[]> {
  const after = page.after;
  const [first] = keys;
  const bounded =
    after === undefined || first === undefined
      ? query
      : query
          .$if(keys.length > 1, (q) =>
            q.where(
              sql<SqlBool>`${sql.ref(first.column)} ${sql.raw(first.direction === 'asc' ? '>=' : '<=')} ${after[0]}`,
            ),
          )
          .where(pastKeyset(keys, after, 0));
  return keys
    .reduce((sorted, key) => sorted.orderBy(sql`${sql.ref(key.column)} ${sql.raw(key.direction)}`), bounded)
    .limit(page.limit + 1)
    .execute() as Promise<O[]>;
}

/**
 * The rows of one page of a list ordered by `key` descending (an id, which sorts by creation time,
 * or another unique number).
 */
export function descendingAfter<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  key: string,
  page: Paging,
): Promise<O[]> {
  return keysetPage(query, [{ column: key, direction: 'desc' }], page);
}
