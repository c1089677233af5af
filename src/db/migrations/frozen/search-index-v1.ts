import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import type { Engine } from './engine.ts';
import { identifier } from './identifier.ts';

/**
 * The first design of substring search, which migrations 0001 to 0004 built and 0017 replaced
 * (search-index-v2.ts). SQLite: an FTS5 trigram table `<table>_fts` over the table itself (its
 * content), keyed by the row's `seq`, kept by triggers `<table>_fts_insert` and so on.
 * PostgreSQL: a pg_trgm GIN index on each searched column, `<table>_<column>_trgm`. Frozen: these
 * are the statements those migrations ran.
 */

/**
 * Starts a table whose rows are found by substring search: an `id` text key, and on SQLite the
 * `seq` that its index entries are keyed by.
 */
export function searchableTable(
  db: Kysely<unknown>,
  engine: Engine,
  table: string,
): CreateTableBuilder<string, 'id'> {
  if (engine === 'postgres') {
    return db.schema.createTable(table).addColumn('id', 'text', (c) => c.primaryKey());
  }
  return db.schema
    .createTable(table)
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique());
}

/** Builds the first design's search index of `table` over `columns`. */
export async function createSearchIndex(
  db: Kysely<unknown>,
  engine: Engine,
  table: string,
  columns: string[],
): Promise<void> {
  const name = identifier(table);
  const names = columns.map(identifier);
  if (engine === 'postgres') {
    for (const column of names) {
      await sql
        .raw(`CREATE INDEX ${name}_${column}_trgm ON ${name} USING gin (${column} gin_trgm_ops)`)
        .execute(db);
    }
    return;
  }
  const fts = `${name}_fts`;
  const list = names.join(', ');
  const values = (row: 'new' | 'old') => names.map((c) => `${row}.${c}`).join(', ');
  await sql
    .raw(
      `CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content='${name}', content_rowid='seq', tokenize='trigram')`,
    )
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${name} BEGIN
      INSERT INTO ${fts}(rowid, ${list}) VALUES (new.seq, ${values('new')}); END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${name} BEGIN
      INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.seq, ${values('old')}); END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER ${fts}_update AFTER UPDATE OF ${list} ON ${name} BEGIN
      INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.seq, ${values('old')});
      INSERT INTO ${fts}(rowid, ${list}) VALUES (new.seq, ${values('new')}); END`)
    .execute(db);
}

/** Drops the first design's search index of `table`, if it has one. */
export async function dropSearchIndex(
  db: Kysely<unknown>,
  engine: Engine,
  table: string,
  columns: string[],
): Promise<void> {
  const name = identifier(table);
  if (engine === 'postgres') {
    for (const column of columns.map(identifier)) {
      await sql.raw(`DROP INDEX IF EXISTS ${name}_${column}_trgm`).execute(db);
    }
    return;
  }
  for (const event of ['insert', 'delete', 'update']) {
    await sql.raw(`DROP TRIGGER IF EXISTS ${name}_fts_${event}`).execute(db);
  }
  await sql.raw(`DROP TABLE IF EXISTS ${name}_fts`).execute(db);
}
