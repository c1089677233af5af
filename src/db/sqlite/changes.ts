import type BetterSqlite3 from 'better-sqlite3';
import type { ChangeWatch, WatchedTable } from '../engine.ts';

/**
 * Reads the table's row in `change_counts`, which migration 0026's triggers bump in the
 * transaction of every change. Read on the connection itself, synchronously: a few microseconds, as
 * cheap as `PRAGMA data_version`, and unlike it this also moves for changes written by this
 * process's own connection (a change not yet committed there moves it early, which only costs a
 * cache its entries).
 */
export function sqliteChangeWatch(sqlite: BetterSqlite3.Database, table: WatchedTable): ChangeWatch {
  let count: BetterSqlite3.Statement<[string], number> | undefined;
  return {
    version() {
      // Prepared at first use: the table exists once the database has been migrated.
      count ??= sqlite.prepare<[string], number>('SELECT n FROM change_counts WHERE name = ?').pluck();
      return count.get(table) ?? 0;
    },
    close: async () => {},
  };
}
