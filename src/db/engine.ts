import type {
  CompiledQuery,
  Driver,
  Expression,
  Kysely,
  Dialect as KyselyDialect,
  SelectQueryBuilder,
  SqlBool,
} from 'kysely';

/**
 * What differs between SQLite and PostgreSQL at run time, as narrow interfaces that callers depend
 * on one at a time: search expressions, error classification, locks, notifications, and how
 * statements run. Each engine implements them in its own folder (db/sqlite/, db/postgres/), one
 * module per concern; nothing outside db/ knows which engine it runs on. Migrations keep their own
 * DDL (src/db/migrations/index.ts).
 */
export type EngineName = 'sqlite' | 'postgres';

/** Ids from `from` (inclusive) to `below` (exclusive); an end left out is open. */
export interface IdRange {
  from?: string;
  below?: string;
}

/**
 * Substring search, through the index beside each searchable table, `<table>_search`, whose entries
 * lead with the row's tenant (built by migrations 0017 and 0019): a tenant's entries are one range
 * of it and its matches are counted in the index alone. Both engines match case-insensitively on
 * any substring of three or more characters through the index; shorter queries (and, on
 * PostgreSQL, queries holding a newline, which could match across two columns there) are checked
 * row by row, on rows the caller bounds (see servesFromIndex and db/search.ts). Table and column
 * names are quoted identifiers, never raw SQL.
 */
export interface SearchDialect {
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
   * (by reading the rows, for a query no index serves); with `cap`, counting stops past `cap`
   * matches (the answer is then `cap + 1`), so that a count of a query that most rows hold stays
   * cheap.
   */
  countSubstringMatches(
    db: Kysely<unknown>,
    tenantId: string,
    table: string,
    columns: string[],
    query: string,
    cap?: number,
  ): Promise<number>;
}

/** What a failed statement's error says about the failure. */
export interface ErrorClassifier {
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when a statement failed because the database could not be reached or is not taking work
   * now (connection refused, lost or timed out, shutting down, busy past the wait): worth retrying
   * later, and the caller's fault in no way.
   */
  isUnavailable(error: unknown): boolean;
}

/** Transactions that must not run side by side. */
export interface Locks {
  /**
   * Makes a select of rows to claim skip rows other transactions hold (PostgreSQL), so that
   * concurrent workers each take different rows. SQLite has one writer at a time, so its claim
   * (one UPDATE … RETURNING statement) is atomic as it is.
   */
  skipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * Makes a select hold the rows it reads against changes by other transactions until its own ends
   * (FOR SHARE on PostgreSQL), waiting first for a transaction that is changing them: what it read
   * stays true until it commits. SQLite's one writer at a time holds every row so already.
   */
  forShare<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * Holds a lock named `key` until the transaction ends, so that transactions taking the same key
   * run one after another: an advisory lock on PostgreSQL; nothing on SQLite, whose writers already
   * run one at a time.
   */
  lockUntilCommit(db: Kysely<unknown>, key: string): Promise<void>;
}

/**
 * The per-tenant row counters (migrations 0010 and 0028): on PostgreSQL writers append changes
 * beside each count, so that concurrent writers of a tenant share no locked row; SQLite's triggers
 * move the count itself.
 */
export interface RowCounts {
  /** Whether changes are appended beside the counts, for `fold` to add in (PostgreSQL), or not. */
  readonly appended: boolean;
  /**
   * Adds changes appended beside the counts to their counts and removes them, at most `limit` in one
   * statement, so that a read (count plus changes) sees each change once; answers how many it
   * folded. Nothing to do on SQLite.
   */
  fold(db: Kysely<unknown>, limit: number): Promise<number>;
}

/** Telling other processes that something changed. */
export interface Notifier {
  /**
   * Tells the processes listening on `channel` (Database.listen), once the transaction commits and
   * never if it rolls back: a NOTIFY on PostgreSQL, which delivers it at commit and once per
   * transaction however often it was sent. Nothing on SQLite, whose processes share no connection
   * to be told through: they poll.
   */
  notify(db: Kysely<unknown>, channel: string): Promise<void>;
}

/** A listener on a channel (Database.listen); `close` ends it. */
export interface Listening {
  close(): Promise<void>;
}

/** The tables whose changes every process learns of (migration 0026). */
export type WatchedTable = 'api_keys';

/**
 * Whether a table's rows may have changed, in this process or any other, since a process last
 * asked: what a cache of those rows asks before it answers from memory (resources/api-keys/cache.ts).
 */
export interface ChangeWatch {
  /**
   * A number that stays the same while the table is known unchanged and moves when it may have
   * changed, as of this turn of the event loop (db/per-turn.ts): asked as a request is received,
   * on every request. SQLite reads a counter its triggers bump at every change, committed by any
   * connection or written by this one, once per turn; PostgreSQL counts the notices its trigger
   * sends, and moves at every call while it is not listening (connecting, or the connection
   * dropped), since a notice sent then never reaches it. Synchronous and cheap.
   */
  version(): number;
  /** The same number as of now, read afresh: for a check made after a wait, in a later turn maybe. */
  latest(): number;
  /**
   * Where the number can lag behind commits (PostgreSQL: a notice reaches the listening connection
   * after the commit it tells of), resolves once it counts every change committed before the call,
   * one wait shared by the requests of a turn; absent where `version` is current when asked
   * (SQLite reads its counter).
   */
  caughtUp?(): Promise<void>;
  close(): Promise<void>;
}

/** How statements run: what db/deferred-transaction.ts needs to put them where they belong. */
export interface StatementDialect {
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

/** One engine's implementations of each concern. */
export interface Engine {
  readonly name: EngineName;
  readonly search: SearchDialect;
  readonly errors: ErrorClassifier;
  readonly locks: Locks;
  readonly notifier: Notifier;
  readonly rowCounts: RowCounts;
  readonly statements: StatementDialect;
}

/** A connection pool's use now. */
export interface PoolUse {
  /** Connections open, in use or idle. */
  open: number;
  idle: number;
  /** Statements waiting for a connection because every one is in use. */
  waiting: number;
}

/** A database opened by its engine's db/<engine>/open.ts, which db/connection.ts wraps. */
export interface OpenedDatabase<Tables> {
  db: Kysely<Tables>;
  engine: Engine;
  close(): Promise<void>;
  /** Calls `onNotice` after each notice on `channel` (PostgreSQL); absent where there are none. */
  listen?(channel: string, onNotice: () => void): Listening;
  /** The connection pool's use now, where there is a pool (PostgreSQL). */
  poolUse?(): PoolUse;
  /** Watches a table for changes made anywhere. */
  watch(table: WatchedTable): ChangeWatch;
  /**
   * The rows of a compiled read run synchronously, where the engine can and may now (SQLite, when
   * nothing else has its connection and no group commit is open: db/sqlite/driver.ts); undefined
   * when it must run through Kysely as any other statement. Absent on PostgreSQL, whose every
   * statement is a round trip.
   */
  readonly readAtOnce?: (query: CompiledQuery) => unknown[] | undefined;
  /**
   * A mark of this process's own commits, for reads shared by the requests of a turn (db/per-turn.ts):
   * it moves when this process may have committed a change since it last moved, and is undefined
   * while this process holds changes not yet committed that its own reads see (SQLite's open group),
   * when nothing read may be shared.
   */
  ownWrites(): number | undefined;
}
