import {
  type CreateTableBuilder,
  type Expression,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';

/**
 * Everything that differs between SQLite and PostgreSQL lives here, so that migrations, stores
 * and services stay the same for both.
 *
 * Substring search: SQLite keeps an FTS5 trigram index beside each searchable table, keyed by an
 * integer `seq` column (stable rowids); PostgreSQL keeps a pg_trgm GIN index per column and
 * answers ILIKE from it. Both match case-insensitively on any substring of three or more
 * characters through the index; shorter queries fall back to a LIKE scan on both.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Starts a table whose rows are found by substring search: `id` text key plus what the index needs. */
  searchableTable(db: Kysely<unknown>, table: string): CreateTableBuilder<string, 'id'>;
  createSearchIndex(db: Kysely<unknown>, table: string, columns: string[]): Promise<void>;
  /** True when any of the table's columns contains `query`, case-insensitively. */
  substringMatch(table: string, columns: string[], query: string): Expression<SqlBool>;
  isUniqueViolation(error: unknown): boolean;
  /**
   * True when a statement failed because the database could not be reached or is not taking work
   * now (connection refused, lost or timed out, shutting down, busy past the wait): worth retrying
   * later, and the caller's fault in no way.
   */
  isUnavailable(error: unknown): boolean;
  /** Keeps `tenant_row_counts` up to date for `table` with triggers, so a tenant's total needs no count. */
  createRowCounter(db: Kysely<unknown>, table: string): Promise<void>;
  /**
   * A row trigger that runs `statements` (SQL that may use NEW and OLD, portable between both
   * databases) after each insert, delete or update of `table` for which `when` holds.
   */
  createTrigger(db: Kysely<unknown>, trigger: Trigger): Promise<void>;
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
}

export interface Trigger {
  name: string;
  table: string;
  /** `INSERT`, `DELETE`, or `UPDATE OF` and the columns whose change fires it. */
  event: 'INSERT' | 'DELETE' | `UPDATE OF ${string}`;
  when?: string;
  statements: string[];
}

const MIN_INDEXED_QUERY = 3;

function likePattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  searchableTable(db, table) {
    return db.schema
      .createTable(table)
      .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('id', 'text', (c) => c.notNull().unique());
  },
  async createSearchIndex(db, table, columns) {
    const fts = `${table}_fts`;
    const list = columns.join(', ');
    const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${c}`).join(', ');
    await sql
      .raw(
        `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${table}', content_rowid='seq', tokenize='trigram')`,
      )
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} BEGIN
        INSERT INTO ${fts}(rowid, ${list}) VALUES (new.seq, ${values('new')}); END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN
        INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.seq, ${values('old')}); END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${fts}_update AFTER UPDATE OF ${list} ON ${table} BEGIN
        INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.seq, ${values('old')});
        INSERT INTO ${fts}(rowid, ${list}) VALUES (new.seq, ${values('new')}); END`)
      .execute(db);
  },
  substringMatch(table, columns, query) {
    if ([...query].length < MIN_INDEXED_QUERY) return likeAny(table, columns, query, 'LIKE');
    const phrase = `"${query.replaceAll('"', '""')}"`;
    const fts = sql.table(`${table}_fts`);
    return sql<SqlBool>`${sql.ref(`${table}.seq`)} IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${phrase})`;
  },
  async createRowCounter(db, table) {
    const bump = (row: 'new' | 'old', by: string) =>
      `INSERT INTO tenant_row_counts (tenant_id, name, n) VALUES (${row}.tenant_id, '${table}', ${by})
       ON CONFLICT (tenant_id, name) DO UPDATE SET n = n + ${by};`;
    await sql
      .raw(`CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN ${bump('new', '1')} END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN ${bump('old', '-1')} END`)
      .execute(db);
  },
  async createTrigger(db, { name, table, event, when, statements }) {
    const condition = when ? `WHEN ${when}` : '';
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW ${condition} BEGIN ${statements.join(';\n')}; END`,
      )
      .execute(db);
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
/** Connection exceptions (08), too many connections (53300), shutdown and startup (57P01–57P03). */
const POSTGRES_UNAVAILABLE = /^(08...|53300|57P0[123])$/;
/** What node-postgres says, without a code, about a connection that broke or never came. */
const CONNECTION_LOST =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Client was closed/i;

export const postgresDialect: Dialect = {
  name: 'postgres',
  searchableTable(db, table) {
    return db.schema.createTable(table).addColumn('id', 'text', (c) => c.primaryKey());
  },
  async createSearchIndex(db, table, columns) {
    for (const column of columns) {
      await sql
        .raw(`CREATE INDEX ${table}_${column}_trgm ON ${table} USING gin (${column} gin_trgm_ops)`)
        .execute(db);
    }
  },
  substringMatch(table, columns, query) {
    return likeAny(table, columns, query, 'ILIKE');
  },
  async createRowCounter(db, table) {
    await sql
      .raw(`CREATE FUNCTION ${table}_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN
            INSERT INTO tenant_row_counts (tenant_id, name, n) VALUES (NEW.tenant_id, '${table}', 1)
            ON CONFLICT (tenant_id, name) DO UPDATE SET n = tenant_row_counts.n + 1;
          ELSE
            UPDATE tenant_row_counts SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND name = '${table}';
          END IF;
          RETURN NULL;
        END $$`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${table}_count AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_count()`,
      )
      .execute(db);
  },
  async createTrigger(db, { name, table, event, when, statements }) {
    await sql
      .raw(
        `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${statements.join(';\n')}; RETURN NULL; END $$`,
      )
      .execute(db);
    const condition = when ? `WHEN (${when})` : '';
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW ${condition} EXECUTE FUNCTION ${name}()`,
      )
      .execute(db);
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
};
