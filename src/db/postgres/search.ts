import { type Expression, type SqlBool, sql } from 'kysely';
import type { SearchDialect } from '../engine.ts';
import {
  countScanning,
  countUpTo,
  indexable,
  likeAny,
  likePattern,
  MIN_INDEXED_QUERY,
} from '../substring.ts';

/**
 * Search on PostgreSQL: `<table>_search` is a narrow table of (id, tenant's number, the searched
 * columns lowercased and joined by newlines) with a pg_trgm GIN index on that text (built by
 * migrations 0017 and 0019), matched with LIKE, which is ILIKE on each column as ILIKE lowercases
 * both sides.
 */

/** What joins the columns of a row in its index entry: a newline, chr(10). */
const COLUMN_SEPARATOR = '\n';

const ilike = (table: string, columns: string[], query: string) => likeAny(table, columns, query, 'ILIKE');

/** A newline joins the columns in the index, so only a query without one is served by it. */
function servesFromIndex(query: string): boolean {
  return indexable(query) && !query.includes(COLUMN_SEPARATOR);
}

/**
 * The entries of the table's index whose content holds `query`. GIN
 * reads the whole posting list of every trigram it is given, however common, so a query of several
 * words gives it only the word that is rarest in the planner's sample of the column (ANALYZE's
 * histogram: a word in every row, like "holdings" in "Acme Holdings", would cost a read of a million
 * entries per trigram), and the whole query is checked on the entries found.
 */
function contentHolds(table: string, query: string): Expression<SqlBool> {
  const pattern = sql<string>`lower(${likePattern(query)})`;
  const whole = sql<SqlBool>`content LIKE ${pattern} ESCAPE '\\'`;
  if (query.split(/[^\p{L}\p{N}]+/u).filter(indexable).length < 2) return whole;
  const word = sql<string>`coalesce(${rarestWord(table, query)}, ${pattern})`;
  // `content || ''` is not what the index holds: the whole query is a condition on the entries alone.
  return sql<SqlBool>`content LIKE ${word} ESCAPE '\\' AND (content || '') LIKE ${pattern} ESCAPE '\\'`;
}

/**
 * A LIKE pattern for the word of `query` (lowercased, split where it is not a letter or a digit) that
 * the fewest values of the histogram of the index's content hold, the longest of those: a word of
 * the query, so every entry that holds the query holds it too.
 */
function rarestWord(table: string, query: string): Expression<string> {
  return sql<string>`(SELECT '%' || word || '%'
    FROM unnest(regexp_split_to_array(lower(${query}), '[^[:alnum:]]+')) AS words (word)
    WHERE length(word) >= ${MIN_INDEXED_QUERY}
    ORDER BY (SELECT count(*) FROM pg_stats, unnest(histogram_bounds::text::text[]) AS sampled
        WHERE schemaname = current_schema() AND tablename = ${`${table}_search`} AND attname = 'content'
          AND sampled LIKE '%' || word || '%'),
      length(word) DESC
    LIMIT 1)`;
}

/** The index entries of the tenant's rows. */
function ofTenant(tenantId: string): Expression<SqlBool> {
  return sql<SqlBool>`tenant_number = (SELECT number FROM search_tenants WHERE tenant_id = ${tenantId})`;
}

export const postgresSearch: SearchDialect = {
  servesFromIndex,
  containsText: ilike,
  substringMatch(table, columns, query, tenantId) {
    if (!servesFromIndex(query)) return ilike(table, columns, query);
    return sql<SqlBool>`${sql.ref(`${table}.id`)} IN
      (SELECT id FROM ${sql.table(`${table}_search`)} WHERE ${contentHolds(table, query)}
        ${tenantId === undefined ? sql`` : sql`AND ${ofTenant(tenantId)}`})`;
  },
  // The rows are few and read anyway: checking them costs less than reading the index.
  substringMatchBetween: (table, columns, query) => ilike(table, columns, query),
  async countSubstringMatches(db, tenantId, table, columns, query, cap) {
    if (!servesFromIndex(query)) return countScanning(db, tenantId, table, ilike(table, columns, query), cap);
    return countUpTo(
      db,
      sql`SELECT 1 FROM ${sql.table(`${table}_search`)} WHERE ${contentHolds(table, query)} AND ${ofTenant(tenantId)}`,
      cap,
    );
  },
};
