import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type DialectAdapter,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Engine, OpenedDatabase } from '../engine.ts';
import { sqliteChangeWatch, sqliteOwnWrites } from './changes.ts';
import { GroupCommitSqliteDriver } from './driver.ts';
import { isBusy, sqliteErrors } from './errors.ts';
import { sqliteLocks, sqliteNotifier } from './locks.ts';
import { sqliteRowCounts } from './row-counts.ts';
import { sqliteSearch } from './search.ts';

export const sqliteEngine: Engine = {
  name: 'sqlite',
  search: sqliteSearch,
  errors: sqliteErrors,
  locks: sqliteLocks,
  notifier: sqliteNotifier,
  rowCounts: sqliteRowCounts,
  statements: {
    failedStatementAbortsTransaction: false,
    kyselyDialect: (driver) => ({
      createDriver: () => driver,
      createAdapter: () => new SqliteAdapter(),
      createQueryCompiler: () => new SqliteQueryCompiler(),
      createIntrospector: (db) => new SqliteIntrospector(db),
    }),
  },
};

/**
 * Kysely runs SQLite migrations outside a transaction, which is neither crash-safe nor safe when two
 * processes migrate one file. Here each run is one transaction, and the driver begins every
 * transaction IMMEDIATE: it holds SQLite's write lock from before it reads which migrations have run
 * until it commits, so a second process waits for it and then finds the work done.
 */
class MigratingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TailorSqliteDialect extends SqliteDialect {
  constructor(
    sqlite: SQLite.Database,
    private readonly driver: GroupCommitSqliteDriver,
  ) {
    super({ database: sqlite });
  }

  override createAdapter(): DialectAdapter {
    return new MigratingSqliteAdapter();
  }

  override createDriver(): Driver {
    return this.driver;
  }
}

const OPTIMIZE_EVERY_MS = 60 * 60 * 1000;

/** How long a statement other than the one taking the write lock may wait for another process's lock. */
export const BRIEF_LOCK_WAIT_MS = 100;

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'tailor.db');
}

/** The file's connection, set as Tailor runs every one (the bench's ceiling opens its own so too). */
export function connectSqlite(dataDir: string): SQLite.Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(sqliteFile(dataDir));
  // SQLite waits for another process's lock synchronously, on the event loop: only the brief locks
  // of reads and of opening (another process starting the file's WAL, or checkpointing) are waited
  // for so. The write lock, which another process may hold for seconds, the driver waits for itself,
  // asynchronously (GroupCommitSqliteDriver.openGroup asks for it with no wait at all).
  sqlite.pragma(`busy_timeout = ${BRIEF_LOCK_WAIT_MS}`);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a write is on disk before the API acknowledges it, even if the machine loses power.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}

export function openSqlite<Tables>(dataDir: string, timeoutMs: number): OpenedDatabase<Tables> {
  const sqlite = connectSqlite(dataDir);
  const driver = new GroupCommitSqliteDriver(sqlite, timeoutMs, BRIEF_LOCK_WAIT_MS);
  const db = new Kysely<Tables>({ dialect: new TailorSqliteDialect(sqlite, driver) });
  // Fresh statistics let the planner choose between the tenant index and a search index; SQLite
  // recommends this at open and periodically on long-lived connections.
  const optimize = () => {
    try {
      sqlite.pragma('optimize=0x10002');
    } catch (error) {
      // Another process holds the write lock (a migration, say): the statistics wait for the next hour.
      if (!isBusy(error)) throw error;
    }
  };
  optimize();
  const timer = setInterval(optimize, OPTIMIZE_EVERY_MS).unref();
  const ownWrites = sqliteOwnWrites(sqlite);
  return {
    db,
    engine: sqliteEngine,
    close() {
      clearInterval(timer);
      return db.destroy();
    },
    watch: (table) => sqliteChangeWatch(sqlite, table, ownWrites),
    readAtOnce: (query) => driver.readAtOnce(query),
    ownWrites,
  };
}
