import { type MigrationResult, Migrator } from 'kysely';
import type { Database } from './connection.ts';
import { migrationsFor } from './migrations/index.ts';

const ATTEMPTS = 20;

function isLockContention(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // SQLITE_BUSY: another process migrates the same file; 23505/42P07: another node created the
  // migration bookkeeping tables at the same moment.
  return code === 'SQLITE_BUSY' || code === '23505' || code === '42P07';
}

/**
 * Brings the schema to the latest version. Safe when several nodes start at once: on PostgreSQL
 * Kysely holds an advisory lock for the run; on SQLite the file lock serialises writers, and a
 * node that loses the race retries and finds the work done.
 */
export async function migrateToLatest(database: Database): Promise<MigrationResult[]> {
  const migrations = migrationsFor(database.dialect);
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return results ?? [];
    if (attempt >= ATTEMPTS || !isLockContention(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}
