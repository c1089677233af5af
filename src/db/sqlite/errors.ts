import type { ErrorClassifier } from '../engine.ts';

const code = (error: unknown) => (error as { code?: unknown })?.code;

/** better-sqlite3's error codes: a broken unique key or primary key; another writer holding the file. */
export const sqliteErrors: ErrorClassifier = {
  isUniqueViolation: (error) =>
    code(error) === 'SQLITE_CONSTRAINT_UNIQUE' || code(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isUnavailable: (error) => code(error) === 'SQLITE_BUSY' || code(error) === 'SQLITE_LOCKED',
};
