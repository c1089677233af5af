import { type Kysely, type MigrationResult, Migrator, sql } from 'kysely';
import { type Database, type DatabaseOptions, openDatabase } from './connection.ts';
import { migrationsFor } from './migrations/index.ts';

const ATTEMPTS = 20;
const MIGRATION_TABLE = 'kysely_migration';

/**
 * Migrations renamed after they may have run somewhere, old name → new. The record of a run under
 * the old name moves to the new one before migrating, so the step is not run twice.
 */
const RENAMED: Record<string, string> = { '0009_visitors': '0009_sessions' };

function isLockContention(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // SQLITE_BUSY: another process migrates the same file; 23505/42P07: another node created the
  // migration bookkeeping tables at the same moment.
  return code === 'SQLITE_BUSY' || code === '23505' || code === '42P07';
}

async function followRenames(db: Kysely<unknown>): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === MIGRATION_TABLE)) return;
  for (const [from, to] of Object.entries(RENAMED)) {
    await sql`UPDATE ${sql.table(MIGRATION_TABLE)} SET name = ${to} WHERE name = ${from}`.execute(db);
  }
}

/**
 * Brings the schema to the latest version. Safe when several nodes start at once: on PostgreSQL
 * Kysely holds an advisory lock for the run; on SQLite the file lock serialises writers, and a
 * node that loses the race retries and finds the work done.
 */
export async function migrateToLatest(database: Database): Promise<MigrationResult[]> {
  const migrations = await migrationsFor(database.engine);
  const migrator = new Migrator({
    db: database.acrossTenants(),
    provider: { getMigrations: async () => migrations },
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await followRenames(database.acrossTenants()).then(
      () => migrator.migrateToLatest(),
      (error: unknown) => ({ error, results: undefined }),
    );
    if (!error) return results ?? [];
    if (attempt >= ATTEMPTS || !isLockContention(error)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/**
 * Migrates the database of `options` through connections of its own, whose statements may run as
 * long as they need: a migration may rebuild an index over a million rows, which is no sign of a
 * database that is away. Connecting still gives up after the database timeout.
 */
export async function migrateDatabase(options: DatabaseOptions): Promise<MigrationResult[]> {
  const database = openDatabase({ ...options, unboundedStatements: true });
  try {
    return await migrateToLatest(database);
  } finally {
    await database.close();
  }
}
