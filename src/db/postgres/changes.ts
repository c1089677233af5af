import type { ChangeWatch, WatchedTable } from '../engine.ts';
import type { PostgresListeners } from './listener.ts';

/**
 * Counts the notices that migration 0026's trigger sends on `tailor_<table>` at the commit of every
 * change. While the connection does not listen (before LISTEN answers, after it drops) a notice may
 * be lost, so every call then answers a new number: the cache checking it holds nothing meanwhile,
 * and reads the database each time. The listener's call when it listens again moves it once more.
 */
export function postgresChangeWatch(listeners: PostgresListeners, table: WatchedTable): ChangeWatch {
  let notices = 0;
  const listening = listeners.listen(`tailor_${table}`, () => {
    notices++;
  });
  const version = () => (listening.listening ? notices : ++notices);
  return {
    version,
    latest: version,
    close: () => listening.close(),
  };
}
