import type { SelectQueryBuilder } from 'kysely';
import { descendingAfter, type Paging } from './paging.ts';
import type { TenantDb } from './tenant-db.ts';

/**
 * How many rows after the cursor a page of matches is looked for among first, and all that a query
 * no index serves is looked for among (see matchingPage): LIKE reads that many rows in a few
 * milliseconds.
 */
export const NEAREST_ROWS = 2000;

/** Search counts exactly up to here; beyond, totalCount is null (unknown). */
export const SEARCH_COUNT_CAP = 10_000;

/** A table's substring search: the query, and the columns it is looked for in. */
export interface Search {
  table: string;
  columns: string[];
  query: string;
}

/** The rows of a page of matches, and where the next page resumes when they were not all looked for. */
export interface MatchingPage<R> {
  rows: R[];
  /** The id below which the next page looks, when the search stopped at a stretch of rows. */
  resumeBelow?: string;
}

/**
 * A store's typed builder as this helper sees it: it names columns by strings built at run time
 * (`${table}.id`, the search's columns), which no table type of Kysely's can check, so the builder
 * is seen untyped here; the store's `select` gives the rows their type back.
 */
// biome-ignore lint/suspicious/noExplicitAny: columns named at run time; see above
type Rows<Selected = any> = SelectQueryBuilder<any, any, Selected>;

/**
 * The rows of a page of `candidates` (the tenant's rows a search keeps before its query) that hold
 * the query, newest first by id, each selected by `select`. They are looked for first among the
 * NEAREST_ROWS candidates after the cursor, in the part of the index that covers those rows; only
 * when fewer than a page match there are the older ones found through the tenant's whole part of the
 * index. A common query finds its page near the cursor and a rare one has few matches to read, so
 * that neither reads every match to keep the newest.
 *
 * A query that no index serves (one or two characters) is looked for among those NEAREST_ROWS
 * candidates alone: a page holds the matches among them, fewer than `limit` or none when they are
 * few, and `resumeBelow` says where the next page goes on, so that paging reaches every match while
 * no request reads more than NEAREST_ROWS rows.
 */
export async function matchingPage<R>(
  db: Pick<TenantDb, 'search' | 'tenantId'>,
  candidates: Rows,
  select: (rows: Rows) => Rows<R>,
  search: Search,
  page: Paging,
): Promise<MatchingPage<R>> {
  const { table, columns, query } = search;
  const id = `${table}.id`;
  const below = page.after === undefined ? undefined : String(page.after[0]);
  const afterCursor = below === undefined ? candidates : candidates.where(id, '<', below);
  const farthest: { id: string } | undefined = await afterCursor
    .select(id)
    .orderBy(id, 'desc')
    .limit(1)
    .offset(NEAREST_ROWS - 1)
    .executeTakeFirst();
  const from = farthest?.id;
  const nearest = from === undefined ? candidates : candidates.where(id, '>=', from);
  const near = await descendingAfter(
    select(
      nearest.where(db.search.substringMatchBetween(table, columns, query, db.tenantId, { from, below })),
    ),
    id,
    page,
  );
  if (from === undefined || near.length > page.limit) return { rows: near };
  if (!db.search.servesFromIndex(query)) return { rows: near, resumeBelow: from };
  const older = await descendingAfter(
    select(candidates.where(db.search.substringMatch(table, columns, query, db.tenantId))),
    id,
    { limit: page.limit - near.length, after: [from] },
  );
  return { rows: [...near, ...older] };
}
