import fs from 'node:fs';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { type Environment, freshEnvironment } from '../helpers/process.ts';
import { onPostgres } from '../helpers/server.ts';

/**
 * Migrations are frozen history (docs/architecture.md): each step holds its own DDL, so what a
 * database becomes depends on the steps alone, not on when it was made or how many steps it took
 * at once. Two checks:
 *
 * - A database upgraded one step at a time from 0001, each step committed before the next (as an
 *   upgrade finds a database made at any earlier step), has exactly the schema of a database made
 *   fresh by `migrateToLatest`.
 * - That schema is the one written down in tests/db/schema/<engine>.txt. A change of it is a
 *   change of history unless a new migration made it: the file shows it in review. After adding a
 *   migration, write the file again with `UPDATE_SCHEMA_SNAPSHOT=1 npx vitest run
 *   tests/db/migrations-frozen.test.ts` (on PostgreSQL too, with TEST_DATABASE_URL) and read its diff.
 */

const SNAPSHOT = path.resolve('tests/db/schema', `${onPostgres ? 'postgres' : 'sqlite'}.txt`);

interface Built {
  database: Database;
  environment: Environment;
}

async function emptyDatabase(): Promise<Built> {
  const environment = await freshEnvironment();
  const database = openDatabase({
    databaseUrl: environment.env.DATABASE_URL,
    dataDir: environment.env.TAILOR_DATA_DIR as string,
  });
  return { database, environment };
}

async function close({ database, environment }: Built): Promise<void> {
  await database.close();
  await environment.drop();
}

/** Runs the migrations one at a time, each on its own, as upgrades from every earlier step would. */
async function migrateStepByStep(database: Database): Promise<string[]> {
  const migrations = await migrationsFor(database.engine);
  const migrator = new Migrator({
    db: anyTables(database),
    provider: { getMigrations: async () => migrations },
  });
  const applied: string[] = [];
  for (let step = 0; step < Object.keys(migrations).length; step++) {
    const { error, results } = await migrator.migrateUp();
    if (error) throw error;
    expect(results).toHaveLength(1);
    applied.push(...(results ?? []).map((result) => result.migrationName));
  }
  return applied;
}

/** One whitespace between words, so that SQL is compared by what it says. */
const squeezed = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

type Rows = Record<string, unknown>[];

async function rows(db: Kysely<unknown>, query: ReturnType<typeof sql>): Promise<Rows> {
  return (await query.execute(db)).rows as Rows;
}

/**
 * The schema of an SQLite database as lines of text: every table, index, trigger and virtual
 * table (FTS5 with its shadow tables) with the SQL that made it, and every column with its type,
 * nullability, default and place in the key.
 */
async function sqliteSchema(db: Kysely<unknown>): Promise<string[]> {
  const objects = await rows(
    db,
    sql`SELECT type, name, tbl_name, sql FROM sqlite_master
      WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY type, name`,
  );
  const lines: string[] = [];
  for (const object of objects) {
    lines.push(
      `${object.type} ${object.name} on ${object.tbl_name}: ${squeezed(object.sql as string | null)}`,
    );
    if (object.type !== 'table') continue;
    const columns = await rows(db, sql`SELECT * FROM pragma_table_info(${object.name as string})`);
    for (const column of columns) {
      const described = [
        `  column ${object.name}.${column.name}`,
        column.type,
        column.notnull ? 'not null' : '',
        column.dflt_value === null ? '' : `default ${column.dflt_value}`,
        column.pk ? `key ${column.pk}` : '',
      ];
      lines.push(described.filter(Boolean).join(' '));
    }
  }
  return lines;
}

/**
 * The schema of a PostgreSQL database as lines of text: extensions, every column with its type,
 * nullability, default and identity, constraints, indexes with their definitions, triggers and the
 * functions they run (the search side tables and their trigram indexes among them).
 */
async function postgresSchema(db: Kysely<unknown>): Promise<string[]> {
  const here = sql`(SELECT oid FROM pg_namespace WHERE nspname = current_schema())`;
  const queries: [string, ReturnType<typeof sql>][] = [
    ['extension', sql`SELECT extname AS name FROM pg_extension ORDER BY extname`],
    [
      'column',
      sql`SELECT table_name || '.' || column_name AS name, data_type, is_nullable, column_default, is_identity
        FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name NOT LIKE 'kysely_%'
        ORDER BY table_name, ordinal_position`,
    ],
    [
      'constraint',
      sql`SELECT c.conrelid::regclass::text || '.' || c.conname AS name, pg_get_constraintdef(c.oid) AS definition
        FROM pg_constraint c WHERE c.connamespace = ${here} AND c.conrelid::regclass::text NOT LIKE 'kysely_%'
        ORDER BY 1`,
    ],
    [
      'index',
      sql`SELECT indexname AS name, indexdef FROM pg_indexes
        WHERE schemaname = current_schema() AND tablename NOT LIKE 'kysely_%' ORDER BY indexname`,
    ],
    [
      'trigger',
      sql`SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = ${here} AND NOT t.tgisinternal
        ORDER BY t.tgname`,
    ],
    [
      'function',
      sql`SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition FROM pg_proc p
        WHERE p.pronamespace = ${here} ORDER BY p.proname`,
    ],
  ];
  const lines: string[] = [];
  for (const [kind, query] of queries) {
    for (const row of await rows(db, query)) {
      const { name, ...rest } = row;
      const described = Object.values(rest).map((value) => squeezed(value === null ? 'null' : String(value)));
      lines.push([`${kind} ${name}`, ...described].join(' | '));
    }
  }
  return lines;
}

function schemaOf(database: Database): Promise<string[]> {
  const db = anyTables(database) as Kysely<unknown>;
  return onPostgres ? postgresSchema(db) : sqliteSchema(db);
}

describe('migrations are frozen history', () => {
  it('a database upgraded one migration at a time from 0001 has the schema of one made fresh, and that schema is the one written down', async () => {
    const stepwise = await emptyDatabase();
    const fresh = await emptyDatabase();
    try {
      const applied = await migrateStepByStep(stepwise.database);
      expect(applied).toEqual(Object.keys(await migrationsFor(stepwise.database.engine)));
      await migrateToLatest(fresh.database);

      const schema = await schemaOf(fresh.database);
      expect(await schemaOf(stepwise.database)).toEqual(schema);

      const text = `${schema.join('\n')}\n`;
      if (process.env.UPDATE_SCHEMA_SNAPSHOT) fs.writeFileSync(SNAPSHOT, text);
      expect(text, `the schema differs from ${SNAPSHOT}: see this file's comment`).toBe(
        fs.readFileSync(SNAPSHOT, 'utf8'),
      );
    } finally {
      await close(stepwise);
      await close(fresh);
    }
  });
});
