import {
  type Driver,
  type Expression,
  type Kysely,
  type Dialect as KyselyDialect,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type SelectQueryBuilder,
  type SqlBool,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';

/**
 * Everything that differs between SQLite and PostgreSQL at run time lives here, so that stores and
 * services stay the same for both (migrations keep their own DDL: src/db/migrations/index.ts).
 *
 * Substring search: each searchable table has an index beside it, `<table>_search`, whose entries
 * lead with the row's tenant, so that a tenant's entries are one range of it and its matches are
 * counted in the index alone, without reading a row of the table. A tenant's part of the key is
 * its number in `search_tenants`, given when its first searchable row is written. SQLite: an FTS5
 * trigram table without content whose rowid is the tenant's number times 2^40 plus the row's
 * `seq`. PostgreSQL: a narrow table of (id, tenant's number, the searched columns lowercased and
 * joined by newlines) with a pg_trgm GIN index on that text, matched with LIKE (which is ILIKE on
 * each column, as ILIKE lowercases both sides). Both match case-insensitively on any substring of
 * three or more characters through the index; shorter queries (and, on PostgreSQL, queries holding
 * a newline, which could match across two columns there) are checked row by row with LIKE or ILIKE,
 * on rows the caller bounds (see servesFromIndex and db/search.ts).
 *
 * The indexes are built by migrations: 0017 (src/db/migrations/frozen/search-index-v2.ts) and 0019
 * for persons.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * True when the search indexes serve `query`: three characters or more (on PostgreSQL, without a
   * newline). Any other query is checked row by row, so its caller bounds the rows it reads.
   */
  servesFromIndex(query: string): boolean;
  /**
   * True when any of the table's columns contains `query`, case-insensitively, found through the
   * index; given the tenant that the statement is limited to, through that tenant's part alone.
   */
  substringMatch(table: string, columns: string[], query: string, tenantId?: string): Expression<SqlBool>;
  /**
   * Rows of `table` any of whose `columns` holds `query`, case-insensitively, checked row by row:
   * for tables without a search index, whose scans the caller keeps to one tenant.
   */
  containsText(table: string, columns: string[], query: string): Expression<SqlBool>;
  /**
   * substringMatch for the tenant's rows whose id is in `ids` (a stretch of a few thousand rows),
   * to which the caller keeps the statement: SQLite reads the index only between the least and the
   * greatest seq of those rows, PostgreSQL checks the rows themselves. Cheap however many rows
   * elsewhere match.
   */
  substringMatchBetween(
    table: string,
    columns: string[],
    query: string,
    tenantId: string,
    ids: IdRange,
  ): Expression<SqlBool>;
  /**
   * How many of the tenant's rows of `table` match, as substringMatch, counted in the index alone
   * (by reading the rows, for a query no index serves); with `cap`, counting stops past `cap` matches (the answer is then `cap + 1`), so that a count
   * of a query that most rows hold stays cheap.
   */
  countSubstringMatches(
    db: Kysely<unknown>,
    tenantId: string,
    table: string,
    columns: string[],
    query: string,
    cap?: number,
  ): Promise<number>;
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when a statement failed because the database could not be reached or is not taking work
   * now (connection refused, lost or timed out, shutting down, busy past the wait): worth retrying
   * later, and the caller's fault in no way.
   */
  isUnavailable(error: unknown): boolean;
  /**
   * Makes a select of rows to claim skip rows other transactions hold (PostgreSQL), so that
   * concurrent workers each take different rows. SQLite has one writer at a time, so its claim
   * (one UPDATE … RETURNING statement) is atomic as it is.
   */
  skipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * Holds a lock named `key` until the transaction ends, so that transactions taking the same key
   * run one after another: an advisory lock on PostgreSQL; nothing on SQLite, whose writers already
   * run one at a time.
   */
  lockUntilCommit(db: Kysely<unknown>, key: string): Promise<void>;
  /**
   * Tells the processes listening on `channel` (Database.listen), once the transaction commits and
   * never if it rolls back: a NOTIFY on PostgreSQL, which delivers it at commit and once per
   * transaction however often it was sent. Nothing on SQLite, whose processes share no connection
   * to be told through: they poll.
   */
  notify(db: Kysely<unknown>, channel: string): Promise<void>;
  /**
   * Whether a statement that fails aborts the transaction it is in, so that every later statement
   * fails until it rolls back (PostgreSQL), rather than being undone alone (SQLite).
   */
  readonly failedStatementAbortsTransaction: boolean;
  /**
   * Kysely's dialect of this database around `driver`: the SQL of this database, run by a driver
   * that decides where each statement goes (db/deferred-transaction.ts).
   */
  kyselyDialect(driver: Driver): KyselyDialect;
}

/** Ids from `from` (inclusive) to `below` (exclusive); an end left out is open. */
export interface IdRange {
  from?: string;
  below?: string;
}

const MIN_INDEXED_QUERY = 3;

/** Bits of an SQLite search rowid below the tenant's number: 2^40 seqs per table, 2^23 tenants. */
const SEQ_BITS = 40;
const SEQ_MASK = 2 ** SEQ_BITS - 1;

/** What joins the columns of a row in its PostgreSQL index entry: a newline, chr(10). */
const COLUMN_SEPARATOR = '\n';

function likePattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function indexable(query: string): boolean {
  return [...query].length >= MIN_INDEXED_QUERY;
}

/**
 * How many of the tenant's rows match `condition`, counted by reading them: for what no index
 * serves; with `cap`, at most `cap + 1`.
 */
function countScanning(
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

/** How many rows `rows` selects; with `cap`, at most `cap + 1`. */
async function countUpTo(db: Kysely<unknown>, rows: Expression<unknown>, cap?: number): Promise<number> {
  const limited = cap === undefined ? rows : sql`${rows} LIMIT ${cap + 1}`;
  const { rows: counted } = await sql<{
    n: number;
  }>`SELECT count(*) AS n FROM (${limited}) AS matches`.execute(db);
  return Number(counted[0]?.n ?? 0);
}

function likeAny(
  table: string,
  columns: string[],
  query: string,
  operator: 'LIKE' | 'ILIKE',
): Expression<SqlBool> {
  const pattern = likePattern(query);
  const tests = columns.map(
    (column) => sql<SqlBool>`${sql.ref(`${table}.${column}`)} ${sql.raw(operator)} ${pattern} ESCAPE '\\'`,
  );
  return sql<SqlBool>`(${sql.join(tests, sql` OR `)})`;
}

/** The entries of the table's FTS5 index that hold `query`, matched as one phrase whatever it holds. */
function ftsMatch(table: string, query: string): Expression<SqlBool> {
  const index = sql.table(`${table}_search`);
  return sql<SqlBool>`${index} MATCH ${`"${query.replaceAll('"', '""')}"`}`;
}

/** The tenant's number times 2^40: where its part of every SQLite search index starts. */
function tenantBase(tenantId: string): Expression<number> {
  return sql<number>`(SELECT number << ${sql.raw(String(SEQ_BITS))} FROM search_tenants WHERE tenant_id = ${tenantId})`;
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
  seqs: SeqRange = { first: sql<number>`0`, last: sql<number>`${sql.raw(String(SEQ_MASK))}` },
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

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  servesFromIndex: indexable,
  // SQLite's LIKE ignores case (of ASCII letters).
  containsText: (table, columns, query) => likeAny(table, columns, query, 'LIKE'),
  substringMatch(table, columns, query, tenantId) {
    if (!indexable(query)) return likeAny(table, columns, query, 'LIKE');
    const seqs =
      tenantId === undefined
        ? sql`SELECT rowid & ${SEQ_MASK} FROM ${sql.table(`${table}_search`)} WHERE ${ftsMatch(table, query)}`
        : matchingSeqs(table, query, tenantId);
    return sql<SqlBool>`${sql.ref(`${table}.seq`)} IN (${seqs})`;
  },
  substringMatchBetween(table, columns, query, tenantId, ids) {
    if (!indexable(query)) return likeAny(table, columns, query, 'LIKE');
    const seq = (end: 'min' | 'max') =>
      sql<number>`(SELECT ${sql.raw(end)}(seq) FROM ${sql.table(table)} WHERE tenant_id = ${tenantId}${idsIn(ids)})`;
    return sql<SqlBool>`${sql.ref(`${table}.seq`)} IN (${matchingSeqs(table, query, tenantId, {
      first: seq('min'),
      last: seq('max'),
    })})`;
  },
  async countSubstringMatches(db, tenantId, table, columns, query, cap) {
    if (!indexable(query))
      return countScanning(db, tenantId, table, likeAny(table, columns, query, 'LIKE'), cap);
    return countUpTo(db, sql`SELECT 1 ${tenantEntries(table, query, tenantId)}`, cap);
  },
  isUniqueViolation(error) {
    const code = (error as { code?: unknown })?.code;
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  },
  isUnavailable(error) {
    const code = (error as { code?: unknown })?.code;
    return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
  },
  skipLocked: (query) => query,
  lockUntilCommit: async () => {},
  notify: async () => {},
  failedStatementAbortsTransaction: false,
  kyselyDialect: (driver) => ({
    createDriver: () => driver,
    createAdapter: () => new SqliteAdapter(),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  }),
};

const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * Connection exceptions (08), too many connections (53300), shutdown and startup (57P01–57P03), and
 * a statement ended by statement_timeout (57014): the database did not answer in time.
 */
const POSTGRES_UNAVAILABLE = /^(08...|53300|57014|57P0[123])$/;
/** What node-postgres says, without a code, about a connection that broke or never came. */
const CONNECTION_LOST =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client was closed/i;

/** On PostgreSQL a newline joins the columns in the index, so only a query without one is served by it. */
function postgresIndexable(query: string): boolean {
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

export const postgresDialect: Dialect = {
  name: 'postgres',
  servesFromIndex: postgresIndexable,
  containsText: (table, columns, query) => likeAny(table, columns, query, 'ILIKE'),
  substringMatch(table, columns, query, tenantId) {
    if (!postgresIndexable(query)) return likeAny(table, columns, query, 'ILIKE');
    return sql<SqlBool>`${sql.ref(`${table}.id`)} IN
      (SELECT id FROM ${sql.table(`${table}_search`)} WHERE ${contentHolds(table, query)}
        ${tenantId === undefined ? sql`` : sql`AND ${ofTenant(tenantId)}`})`;
  },
  // The rows are few and read anyway: checking them costs less than reading the index.
  substringMatchBetween: (table, columns, query) => likeAny(table, columns, query, 'ILIKE'),
  async countSubstringMatches(db, tenantId, table, columns, query, cap) {
    if (!postgresIndexable(query))
      return countScanning(db, tenantId, table, likeAny(table, columns, query, 'ILIKE'), cap);
    return countUpTo(
      db,
      sql`SELECT 1 FROM ${sql.table(`${table}_search`)} WHERE ${contentHolds(table, query)} AND ${ofTenant(tenantId)}`,
      cap,
    );
  },
  isUniqueViolation(error) {
    return (error as { code?: unknown })?.code === '23505';
  },
  isUnavailable(error) {
    if (!(error instanceof Error)) return false;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_ERRORS.has(code) || POSTGRES_UNAVAILABLE.test(code)))
      return true;
    return CONNECTION_LOST.test(error.message);
  },
  skipLocked: (query) => query.forUpdate().skipLocked(),
  async lockUntilCommit(db, key) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
  },
  async notify(db, channel) {
    await sql`SELECT pg_notify(${channel}, '')`.execute(db);
  },
  failedStatementAbortsTransaction: true,
  kyselyDialect: (driver) => ({
    createDriver: () => driver,
    createAdapter: () => new PostgresAdapter(),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  }),
};
