import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type DialectAdapter,
  type Driver,
  Kysely,
  type KyselyPlugin,
  type MigrationLockOptions,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
} from 'kysely';
import pg from 'pg';
import { type Dialect, postgresDialect, sqliteDialect } from './dialect.ts';
import { withStatementDeadline } from './postgres-deadline.ts';
import { type Listening, PostgresListeners } from './postgres-listener.ts';
import { GroupCommitSqliteDriver } from './sqlite-driver.ts';
import { type AnyTables, TenantDb } from './tenant-db.ts';

/**
 * The database, through two handles: `forTenant(id)`, whose every statement is limited to one
 * tenant's rows (what requests and jobs use), and `acrossTenants`, for the few kinds of work that
 * belong to no one tenant (migrations, API keys and tenants, job claims, purges and pruning), each
 * of which scopes its changes by the rows' own tenant_id.
 */
export class Database {
  constructor(
    readonly acrossTenants: Kysely<AnyTables>,
    readonly dialect: Dialect,
    private readonly closeConnections: () => Promise<void>,
    private readonly listeners?: PostgresListeners,
    private readonly pool?: pg.Pool,
  ) {}

  forTenant(tenantId: string): TenantDb {
    return TenantDb.scoped(tenantId, this.acrossTenants, this.dialect);
  }

  /** The same database with a Kysely plugin on every statement (tests count queries with one). */
  withPlugin(plugin: KyselyPlugin): Database {
    return new Database(
      this.acrossTenants.withPlugin(plugin),
      this.dialect,
      this.closeConnections,
      this.listeners,
      this.pool,
    );
  }

  /** The connection pool's use now, on PostgreSQL; SQLite has one connection and no pool. */
  poolUse(): PoolUse | undefined {
    if (!this.pool) return undefined;
    const { totalCount, idleCount, waitingCount } = this.pool;
    return { open: totalCount, idle: idleCount, waiting: waitingCount };
  }

  /**
   * Calls `onNotice` soon after a transaction that notified `channel` (TenantDb.notify) commits, in
   * any process, and whenever notices may have been missed. SQLite has no notifications: there it
   * is never called, and listeners poll.
   */
  listen(channel: string, onNotice: () => void): Listening {
    return this.listeners?.listen(channel, onNotice) ?? { close: async () => {} };
  }

  /** Whether `error` means the database is away (see Dialect.isUnavailable), not that the statement is wrong. */
  isUnavailable(error: unknown): boolean {
    return this.dialect.isUnavailable(error);
  }

  close(): Promise<void> {
    return this.closeConnections();
  }
}

export interface PoolUse {
  /** Connections open, in use or idle. */
  open: number;
  idle: number;
  /** Statements waiting for a connection because every one is in use. */
  waiting: number;
}

/** How long a wait on the database may last by default (TAILOR_DB_TIMEOUT_MS). */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /**
   * How long any wait on the database may last (for a connection, a lock, a statement's answer)
   * before it fails as the database being away: TAILOR_DB_TIMEOUT_MS.
   */
  databaseTimeoutMs?: number;
  /**
   * Lets statements run as long as they need: a migration that rebuilds an index over a million
   * rows, a bulk load. Waiting for a connection still gives up after `databaseTimeoutMs`.
   */
  unboundedStatements?: boolean;
}

// int8 (counts, epoch milliseconds) arrives as a string by default; every value we keep fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/**
 * Kysely runs SQLite migrations outside a transaction and without a lock, which is neither crash-safe
 * nor safe when two processes migrate one file. Here each run is one transaction whose first
 * statement writes the lock row, so it holds SQLite's write lock from before it reads which
 * migrations have run until it commits.
 */
class MigratingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's adapter interface takes an untyped Kysely here
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    await db
      .updateTable(options.lockTable)
      .set({ is_locked: 1 })
      .where('id', '=', options.lockRowId)
      .execute();
  }
}

class TailorSqliteDialect extends SqliteDialect {
  constructor(private readonly sqlite: SQLite.Database) {
    super({ database: sqlite });
  }

  override createAdapter(): DialectAdapter {
    return new MigratingSqliteAdapter();
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.sqlite);
  }
}

const OPTIMIZE_EVERY_MS = 60 * 60 * 1000;

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'tailor.db');
}

function openSqlite(dataDir: string, timeoutMs: number): Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(sqliteFile(dataDir));
  sqlite.pragma('journal_mode = WAL');
  // FULL: a write is on disk before the API acknowledges it, even if the machine loses power.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${timeoutMs}`);
  const db = new Kysely<AnyTables>({ dialect: new TailorSqliteDialect(sqlite) });
  // Fresh statistics let the planner choose between the tenant index and a search index; SQLite
  // recommends this at open and periodically on long-lived connections.
  const optimize = () => sqlite.pragma('optimize=0x10002');
  optimize();
  const timer = setInterval(optimize, OPTIMIZE_EVERY_MS).unref();
  return new Database(db, sqliteDialect, () => {
    clearInterval(timer);
    return db.destroy();
  });
}

/**
 * Keep-alive settings for PostgreSQL's side of each connection (startup options), so that a session
 * whose client vanished in a partition, maybe inside a transaction holding locks, ends within a few
 * timeouts rather than the two hours of the system's default.
 */
function serverKeepalives(timeoutMs: number): string {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  return `-c tcp_keepalives_idle=${seconds} -c tcp_keepalives_interval=${seconds} -c tcp_keepalives_count=3`;
}

function openPostgres(
  connectionString: string,
  poolSize: number,
  timeoutMs: number,
  bounded: boolean,
): Database {
  // A database that does not answer within timeoutMs is away: requests fail with 503 rather than
  // wait without end. That holds for a connection (connecting, or waiting for one while all are in
  // use) and, unless statements are unbounded, for every statement: PostgreSQL ends one that runs
  // longer (statement_timeout), and one it never answers gives up here (withStatementDeadline).
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeoutMs,
    options: serverKeepalives(timeoutMs),
    ...(bounded ? { statement_timeout: timeoutMs } : {}),
  });
  // A client that loses its connection must not crash the process: the pool reports an idle one's
  // error and replaces it, but a checked-out client emits its own 'error', with no listener but
  // this one (the statement it was running fails on its own, and the pool then drops the client).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // The server's own answer to a statement past statement_timeout comes first when it can: only a
  // statement nobody answers costs its connection.
  const deadlineMs = timeoutMs + SERVER_ANSWER_GRACE_MS;
  const dialect = new PostgresDialect({ pool: bounded ? withStatementDeadline(pool, deadlineMs) : pool });
  const db = new Kysely<AnyTables>({ dialect });
  const listeners = new PostgresListeners(connectionString, timeoutMs);
  const close = async () => {
    await listeners.close();
    await db.destroy();
  };
  return new Database(db, postgresDialect, close, listeners, pool);
}

/** How much longer than statement_timeout a statement is waited for before its connection is given up. */
const SERVER_ANSWER_GRACE_MS = 250;

export function openDatabase(options: DatabaseOptions): Database {
  const timeoutMs = options.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, timeoutMs, !options.unboundedStatements)
    : openSqlite(options.dataDir, timeoutMs);
}
