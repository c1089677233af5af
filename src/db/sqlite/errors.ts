import type { ErrorClassifier } from '../engine.ts';

const code = (error: unknown) => (error as { code?: unknown })?.code;

/** Whether another connection holds the lock `error`'s statement asked for. */
export const isBusy = (error: unknown) => code(error) === 'SQLITE_BUSY';

/** better-sqlite3's error codes: a broken unique key or primary key; another writer holding the file. */
export const sqliteErrors: ErrorClassifier = {
  isUniqueViolation: (error) =>
    code(error) === 'SQLITE_CONSTRAINT_UNIQUE' || code(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isUnavailable: (error) => isBusy(error) || code(error) === 'SQLITE_LOCKED',
};
