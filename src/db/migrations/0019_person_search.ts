import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * A search index for persons' `query` (name and email), of the design the other searchable tables
 * have had since 0017 (see frozen/search-index-v2.ts): its entries lead with the tenant's number in
 * `search_tenants`, so that a tenant's matches are found and counted in the index alone. The DDL is
 * written out here, as it was when this migration was made, so that later changes of the live code
 * do not change what this step did.
 *
 * SQLite keys an entry by the tenant's number times 2^40 plus the row's `seq`. Persons were made
 * without one (0001), and a table's rowid is no key to keep (VACUUM may renumber it), so `seq` is
 * added here: the rows there are take their rowid, each new row the greatest seq plus one (SQLite
 * has one writer at a time), given by the trigger that indexes it.
 *
 * The triggers come before the rows there are are indexed: on PostgreSQL, creating them waits for
 * the writers of persons in flight and holds off new ones until this migration commits, so the
 * backfill sees every row written before and the triggers every row written after.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const statements = engine === 'sqlite' ? SQLITE : POSTGRES;
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** The tenant of `row` gets a number in search_tenants unless it has one. */
const numberTenant = (row: string) =>
  `INSERT INTO search_tenants (tenant_id) SELECT ${row}.tenant_id
     WHERE NOT EXISTS (SELECT 1 FROM search_tenants WHERE tenant_id = ${row}.tenant_id) ON CONFLICT DO NOTHING`;

/** An SQLite index entry's rowid: the tenant's number times 2^40 plus the row's seq. */
const sqliteKey = (row: string, seq: string) =>
  `(SELECT number << 40 FROM search_tenants WHERE tenant_id = ${row}.tenant_id) + ${seq}`;

const SQLITE = [
  'ALTER TABLE persons ADD COLUMN seq integer',
  'UPDATE persons SET seq = rowid',
  'CREATE UNIQUE INDEX persons_by_seq ON persons (seq)',
  // Without content, since a match reads the index alone, nor column sizes, since nothing ranks.
  `CREATE VIRTUAL TABLE persons_search USING fts5(name, email, content='', columnsize=0, tokenize='trigram')`,
  `CREATE TRIGGER persons_search_insert AFTER INSERT ON persons FOR EACH ROW BEGIN
     UPDATE persons SET seq = (SELECT coalesce(max(seq), 0) + 1 FROM persons) WHERE id = new.id;
     ${numberTenant('new')};
     INSERT INTO persons_search (rowid, name, email)
       VALUES (${sqliteKey('new', '(SELECT seq FROM persons WHERE id = new.id)')}, new.name, new.email);
   END`,
  `CREATE TRIGGER persons_search_delete AFTER DELETE ON persons FOR EACH ROW BEGIN
     INSERT INTO persons_search (persons_search, rowid, name, email)
       VALUES ('delete', ${sqliteKey('old', 'old.seq')}, old.name, old.email);
   END`,
  `CREATE TRIGGER persons_search_update AFTER UPDATE OF name, email ON persons FOR EACH ROW BEGIN
     INSERT INTO persons_search (persons_search, rowid, name, email)
       VALUES ('delete', ${sqliteKey('old', 'old.seq')}, old.name, old.email);
     INSERT INTO persons_search (rowid, name, email) VALUES (${sqliteKey('new', 'new.seq')}, new.name, new.email);
   END`,
  `INSERT INTO search_tenants (tenant_id) SELECT DISTINCT tenant_id FROM persons
     WHERE tenant_id NOT IN (SELECT tenant_id FROM search_tenants) ON CONFLICT DO NOTHING`,
  `INSERT INTO persons_search (rowid, name, email)
     SELECT ${sqliteKey('existing', 'existing.seq')}, existing.name, existing.email FROM persons AS existing`,
];

/** What a PostgreSQL index entry holds: the searched columns lowercased, joined by a newline. */
const content = (row: string) => `concat_ws(chr(10), lower(${row}.name), lower(${row}.email))`;

/** A PostgreSQL trigger function of `statements` and its row trigger. */
const postgresTrigger = (name: string, event: string, statements: string) => [
  `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${statements}; RETURN NULL; END $$`,
  `CREATE TRIGGER ${name} AFTER ${event} ON persons FOR EACH ROW EXECUTE FUNCTION ${name}()`,
];

const POSTGRES = [
  'CREATE TABLE persons_search (id text PRIMARY KEY, tenant_number integer NOT NULL, content text NOT NULL)',
  ...postgresTrigger(
    'persons_search_insert',
    'INSERT',
    `${numberTenant('NEW')};
     INSERT INTO persons_search (id, tenant_number, content) VALUES (NEW.id,
       (SELECT number FROM search_tenants WHERE tenant_id = NEW.tenant_id), ${content('NEW')})`,
  ),
  ...postgresTrigger(
    'persons_search_update',
    'UPDATE OF name, email',
    `UPDATE persons_search SET content = ${content('NEW')} WHERE id = NEW.id`,
  ),
  ...postgresTrigger('persons_search_delete', 'DELETE', 'DELETE FROM persons_search WHERE id = OLD.id'),
  `INSERT INTO search_tenants (tenant_id) SELECT DISTINCT tenant_id FROM persons
     WHERE tenant_id NOT IN (SELECT tenant_id FROM search_tenants) ON CONFLICT DO NOTHING`,
  `INSERT INTO persons_search (id, tenant_number, content)
     SELECT existing.id, tenant.number, ${content('existing')} FROM persons AS existing
     JOIN search_tenants AS tenant ON tenant.tenant_id = existing.tenant_id`,
  'CREATE INDEX persons_search_content ON persons_search USING gin (content gin_trgm_ops)',
];
