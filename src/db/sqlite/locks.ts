import type { Locks, Notifier } from '../engine.ts';

/** SQLite runs one writer at a time, so a claim or a change is never concurrent with another. */
export const sqliteLocks: Locks = {
  skipLocked: (query) => query,
  forShare: (query) => query,
  lockUntilCommit: async () => {},
};

/** SQLite's processes share no connection to be told through: they poll. */
export const sqliteNotifier: Notifier = {
  notify: async () => {},
};
