import type { ChangeWatch, WatchedTable } from '../engine.ts';
import { PerTurn } from '../per-turn.ts';
import type { PostgresListeners } from './listener.ts';

/**
 * Counts the notices that migration 0026's trigger sends on `tailor_<table>` at the commit of every
 * change. While the connection does not listen (before LISTEN answers, after it drops) a notice may
 * be lost, so every call then answers a new number: the cache checking it holds nothing meanwhile,
 * and reads the database each time. The listener's call when it listens again moves it once more.
 *
 * A notice reaches the listening connection after the commit it tells of, on its own schedule, so
 * the count alone can lag behind a commit its caller already saw answered (a revoke, then the
 * revoked key at once). `caughtUp` closes that gap: one round trip on the listening connection per
 * turn of the event loop, shared by the turn's requests (db/per-turn.ts), whose answer comes after
 * every notice committed before it was sent.
 */
export function postgresChangeWatch(
  listeners: PostgresListeners,
  table: WatchedTable,
  ownWrites: () => number | undefined,
): ChangeWatch {
  let notices = 0;
  const listening = listeners.listen(`tailor_${table}`, () => {
    notices++;
  });
  const version = () => (listening.listening ? notices : ++notices);
  const thisTurn = new PerTurn<WatchedTable, Promise<void>>(() => listening.caughtUp(), ownWrites);
  return {
    version,
    latest: version,
    caughtUp: () => thisTurn.get(table),
    close: () => listening.close(),
  };
}
