import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';

/** The shortest query a search index serves: a trigram. */
export const MIN_INDEXED_QUERY = 3;

/** True when `query` is long enough for a trigram index to serve. */
export function indexable(query: string): boolean {
  return [...query].length >= MIN_INDEXED_QUERY;
}

/** A LIKE pattern of any text holding `query`, with LIKE's own characters escaped by a backslash. */
export function likePattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Rows any of whose `columns` holds `query`, checked row by row with `operator`. */
export function likeAny(
  table: string,
  columns: string[],
  query: string,
  operator: 'LIKE' | 'ILIKE',
): Expression<SqlBool> {
  const pattern = likePattern(query);
  const keyword = operator === 'LIKE' ? sql`LIKE` : sql`ILIKE`;
  const tests = columns.map(
    (column) => sql<SqlBool>`${sql.ref(`${table}.${column}`)} ${keyword} ${pattern} ESCAPE '\\'`,
  );
  return sql<SqlBool>`(${sql.join(tests, sql` OR `)})`;
}

/** How many rows `rows` selects; with `cap`, at most `cap + 1`. */
export async function countUpTo(
  db: Kysely<unknown>,
  rows: Expression<unknown>,
  cap?: number,
): Promise<number> {
  const limited = cap === undefined ? rows : sql`${rows} LIMIT ${cap + 1}`;
  const { rows: counted } = await sql<{
    n: number;
  }>`SELECT count(*) AS n FROM (${limited}) AS matches`.execute(db);
  return Number(counted[0]?.n ?? 0);
}

/**
 * How many of the tenant's rows match `condition`, counted by reading them: for what no index
 * serves; with `cap`, at most `cap + 1`.
 */
export function countScanning(
  db: Kysely<unknown>,
  tenantId: string,
  table: string,
  condition: Expression<SqlBool>,
  cap?: number,
): Promise<number> {
  const rows = sql`SELECT 1 FROM ${sql.table(table)}
    WHERE ${sql.ref(`${table}.tenant_id`)} = ${tenantId} AND ${condition}`;
  return countUpTo(db, rows, cap);
}
