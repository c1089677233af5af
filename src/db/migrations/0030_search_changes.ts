import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/** Every SQLite search index (0017, 0019): its table and the columns it holds. */
const INDEXED: Record<string, string[]> = {
  accounts: ['name', 'domain'],
  pages: ['name', 'title'],
  topics: ['title', 'purpose'],
  topic_entries: ['content_text'],
  assets: ['name', 'purpose', 'tags_text'],
  persons: ['name', 'email'],
};

/** An index entry's rowid: the tenant's number times 2^40 plus the row's seq (0017, 0019). */
const key = (row: string, seq: string) =>
  `(SELECT number << 40 FROM search_tenants WHERE tenant_id = ${row}.tenant_id) + ${seq}`;

const numberTenant = `INSERT INTO search_tenants (tenant_id) SELECT new.tenant_id
  WHERE NOT EXISTS (SELECT 1 FROM search_tenants WHERE tenant_id = new.tenant_id) ON CONFLICT DO NOTHING`;

/**
 * SQLite's search indexes (FTS5) take their changes once per group commit instead of once per unit
 * of work (src/db/sqlite/driver.ts). FTS5 keeps the terms it is given in memory and writes them out
 * as a new segment of the index whenever a savepoint is released, and each unit of a group runs
 * under a savepoint of its own: every unit that wrote a searched row wrote a segment, and the
 * segments' merges came with them (a person's create spent more on its savepoint's release than on
 * the rest of its statements).
 *
 * So the triggers no longer write the index: they stage each entry to add or delete, with the values
 * it has (an index without content deletes an entry by them), in `<table>_search_changes`, an
 * ordinary table, which a unit's rollback undoes like the rest of its writes. Inserting into
 * `search_changes_applied` applies every staged change in order and empties the staging tables (the
 * row itself is dropped); the driver does so before each commit, and before a read while a group
 * is open, so that no statement outside a transaction sees the index behind its table. PostgreSQL's
 * search index is a table of its own, written as before.
 *
 * The person's insert trigger also finds the new row by its rowid rather than through the index of
 * ids.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'sqlite') return;
  const applies: string[] = [];
  for (const [table, columns] of Object.entries(INDEXED)) {
    const index = `${table}_search`;
    const changes = `${index}_changes`;
    const list = columns.join(', ');
    const values = (row: string) => columns.map((c) => `${row}.${c}`).join(', ');
    const stage = (command: 'NULL' | `'delete'`, row: string, seq: string) =>
      `INSERT INTO ${changes} (command, key, ${list}) VALUES (${command}, ${key(row, seq)}, ${values(row)})`;
    const trigger = (name: string, event: string, statements: string[]) =>
      `CREATE TRIGGER ${index}_${name} AFTER ${event} ON ${table} FOR EACH ROW
       BEGIN ${statements.join(';\n')}; END`;
    // The persons' seq is given by their insert trigger (0019); the other tables have their own.
    const newSeq = table === 'persons' ? '(SELECT seq FROM persons WHERE rowid = new.rowid)' : 'new.seq';
    const numbered =
      table === 'persons'
        ? [
            'UPDATE persons SET seq = (SELECT coalesce(max(seq), 0) + 1 FROM persons) WHERE rowid = new.rowid',
            numberTenant,
          ]
        : [numberTenant];
    const statements = [
      // `command` is the index's own column: NULL adds the entry, 'delete' removes it.
      `CREATE TABLE ${changes} (n integer PRIMARY KEY, command text, key integer NOT NULL, ${list})`,
      `DROP TRIGGER ${index}_insert`,
      `DROP TRIGGER ${index}_update`,
      `DROP TRIGGER ${index}_delete`,
      trigger('insert', 'INSERT', [...numbered, stage('NULL', 'new', newSeq)]),
      trigger('update', `UPDATE OF ${list}`, [
        stage(`'delete'`, 'old', 'old.seq'),
        stage('NULL', 'new', 'new.seq'),
      ]),
      trigger('delete', 'DELETE', [stage(`'delete'`, 'old', 'old.seq')]),
    ];
    for (const statement of statements) await sql.raw(statement).execute(db);
    applies.push(
      `INSERT INTO ${index} (${index}, rowid, ${list}) SELECT command, key, ${list} FROM ${changes} ORDER BY n`,
      `DELETE FROM ${changes}`,
    );
  }
  await sql.raw('CREATE TABLE search_changes_applied (n integer PRIMARY KEY)').execute(db);
  await sql
    .raw(`CREATE TRIGGER search_changes_applied BEFORE INSERT ON search_changes_applied FOR EACH ROW
      BEGIN ${applies.join(';\n')}; SELECT RAISE(IGNORE); END`)
    .execute(db);
}
