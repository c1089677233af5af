import { Migrator } from 'kysely';
import { expect } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { type Environment, freshEnvironment } from './process.ts';

export interface OlderDatabase {
  database: Database;
  environment: Environment;
  close(): Promise<void>;
}

/**
 * An empty database of the kind under test as an older Tailor left it: migrated with the migrations
 * named before `first` only, under the names `renamed` says they had then.
 */
export async function databaseBefore(
  first: string,
  renamed: Record<string, string> = {},
): Promise<OlderDatabase> {
  const environment = await freshEnvironment();
  const database = openDatabase({
    databaseUrl: environment.env.DATABASE_URL,
    dataDir: environment.env.TAILOR_DATA_DIR as string,
  });
  const older = Object.fromEntries(
    Object.entries(await migrationsFor(database.dialect))
      .filter(([name]) => name < first)
      .map(([name, migration]) => [renamed[name] ?? name, migration]),
  );
  const run = await new Migrator({
    db: database.acrossTenants,
    provider: { getMigrations: async () => older },
  }).migrateToLatest();
  expect(run.error).toBeUndefined();
  return {
    database,
    environment,
    async close() {
      await database.close();
      await environment.drop();
    },
  };
}
