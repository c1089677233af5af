import { type Expression, type SqlBool, sql } from 'kysely';
import type { IdRange, SearchDialect } from '../engine.ts';
import { countScanning, countUpTo, indexable, likeAny } from '../substring.ts';

/**
 * Search on SQLite: `<table>_search` is an FTS5 trigram table without content whose rowid is the
 * tenant's number in `search_tenants` times 2^40 plus the row's `seq` (built by migrations 0017 and
 * 0019), so a tenant's entries are one range of rowids. SQLite's LIKE ignores case (of ASCII
 * letters), so a query no index serves is checked with LIKE.
 */

/** Bits of a search rowid below the tenant's number: 2^40 seqs per table, 2^23 tenants. */
const SEQ_BITS = 40;
const SEQ_MASK = 2 ** SEQ_BITS - 1;

const like = (table: string, columns: string[], query: string) => likeAny(table, columns, query, 'LIKE');

/** The entries of the table's FTS5 index that hold `query`, matched as one phrase whatever it holds. */
function ftsMatch(table: string, query: string): Expression<SqlBool> {
  const index = sql.table(`${table}_search`);
  return sql<SqlBool>`${index} MATCH ${`"${query.replaceAll('"', '""')}"`}`;
}

/** The tenant's number times 2^40: where its part of every search index starts. */
function tenantBase(tenantId: string): Expression<number> {
  return sql<number>`(SELECT number << ${sql.lit(SEQ_BITS)} FROM search_tenants WHERE tenant_id = ${tenantId})`;
}

interface SeqRange {
  first: Expression<number>;
  last: Expression<number>;
}

/** FROM and WHERE of the index entries of the tenant's rows that match, with seqs in `seqs`. */
function tenantEntries(
  table: string,
  query: string,
  tenantId: string,
  seqs: SeqRange = { first: sql<number>`0`, last: sql<number>`${sql.lit(SEQ_MASK)}` },
) {
  const base = tenantBase(tenantId);
  return sql`FROM ${sql.table(`${table}_search`)} WHERE ${ftsMatch(table, query)}
    AND rowid BETWEEN ${base} + ${seqs.first} AND ${base} + ${seqs.last}`;
}

function matchingSeqs(table: string, query: string, tenantId: string, seqs?: SeqRange) {
  return sql`SELECT rowid - ${tenantBase(tenantId)} ${tenantEntries(table, query, tenantId, seqs)}`;
}

function idsIn({ from, below }: IdRange) {
  return sql`${from === undefined ? sql`` : sql` AND id >= ${from}`}${below === undefined ? sql`` : sql` AND id < ${below}`}`;
}

export const sqliteSearch: SearchDialect = {
  servesFromIndex: indexable,
  containsText: like,
  substringMatch(table, columns, query, tenantId) {
    if (!indexable(query)) return like(table, columns, query);
    const seqs =
      tenantId === undefined
        ? sql`SELECT rowid & ${SEQ_MASK} FROM ${sql.table(`${table}_search`)} WHERE ${ftsMatch(table, query)}`
        : matchingSeqs(table, query, tenantId);
    return sql<SqlBool>`${sql.ref(`${table}.seq`)} IN (${seqs})`;
  },
  substringMatchBetween(table, columns, query, tenantId, ids) {
    if (!indexable(query)) return like(table, columns, query);
    // With a first id, the rows lie in a stretch of at most NEAREST_ROWS ids: `+seq` keeps SQLite
    // from walking the (tenant_id, seq) index for the bound, through every newer row, and has it
    // read that stretch of the tenant's ids instead. Without one, that index finds each bound in
    // one seek (migration 0035).
    const bounded = ids.from === undefined ? sql`seq` : sql`+seq`;
    const seq = (end: 'min' | 'max') =>
      sql<number>`(SELECT ${end === 'min' ? sql`min` : sql`max`}(${bounded}) FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}${idsIn(ids)})`;
    return sql<SqlBool>`${sql.ref(`${table}.seq`)} IN (${matchingSeqs(table, query, tenantId, {
      first: seq('min'),
      last: seq('max'),
    })})`;
  },
  async countSubstringMatches(db, tenantId, table, columns, query, cap) {
    if (!indexable(query)) return countScanning(db, tenantId, table, like(table, columns, query), cap);
    return countUpTo(db, sql`SELECT 1 ${tenantEntries(table, query, tenantId)}`, cap);
  },
};
