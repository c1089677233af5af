import { Migrator } from 'kysely';
import { expect } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { anyTables } from './any-tables.ts';
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
    Object.entries(await migrationsFor(database.engine))
      .filter(([name]) => name < first)
      .map(([name, migration]) => [renamed[name] ?? name, migration]),
  );
  const run = await new Migrator({
    db: anyTables(database),
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

/** A page row as the migrations before 0011 stored it, written straight into `pages`. */
export function rawPageRow(
  id: string,
  tenantId: string,
  at: number,
  fields: { name?: string; title?: string } = {},
) {
  return {
    id,
    tenant_id: tenantId,
    name: fields.name ?? 'P',
    title: fields.title ?? 'P',
    page_context: 'C',
    page_type: 'inbound',
    status: 'draft',
    brand_id: 'b',
    actions: '[]',
    action_card_widgets: '[]',
    scripts: '[]',
    created_at: at,
    updated_at: at,
  };
}
