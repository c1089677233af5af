import type BetterSqlite3 from 'better-sqlite3';
import type { ChangeWatch, WatchedTable } from '../engine.ts';
import { PerTurn } from '../per-turn.ts';

/**
 * Reads the table's row in `change_counts`, which migration 0026's triggers bump in the
 * transaction of every change. Read on the connection itself, synchronously: a few microseconds, as
 * cheap as `PRAGMA data_version`, and unlike it this also moves for changes written by this
 * process's own connection (a change not yet committed there moves it early, which only costs a
 * cache its entries). Each read is a read transaction of its own (2 µs quiet, 3–7 times that under
 * load), so `version` reads once per turn of the event loop, for every request of the turn.
 */
export function sqliteChangeWatch(
  sqlite: BetterSqlite3.Database,
  table: WatchedTable,
  ownWrites: () => number | undefined,
): ChangeWatch {
  let count: BetterSqlite3.Statement<[string], number> | undefined;
  const latest = () => {
    // Prepared at first use: the table exists once the database has been migrated.
    count ??= sqlite.prepare<[string], number>('SELECT n FROM change_counts WHERE name = ?').pluck();
    return count.get(table) ?? 0;
  };
  const thisTurn = new PerTurn<WatchedTable, number>(latest, ownWrites);
  return {
    version: () => thisTurn.get(table),
    latest,
    close: async () => {},
  };
}

/**
 * This process's own commits on SQLite (OpenedDatabase.ownWrites): its one connection's writes are
 * seen by its reads before they commit, in the group the driver commits at the end of the turn;
 * while a group is open nothing read is shared, and the mark moves once it has committed.
 */
export function sqliteOwnWrites(sqlite: BetterSqlite3.Database): () => number | undefined {
  let commits = 0;
  let open = false;
  return () => {
    if (sqlite.inTransaction) {
      open = true;
      return undefined;
    }
    if (open) {
      open = false;
      commits++;
    }
    return commits;
  };
}
