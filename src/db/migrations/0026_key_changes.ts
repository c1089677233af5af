import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { identifier } from './frozen/identifier.ts';

/**
 * Every process keeps the live API keys it has seen in a cache (resources/api-keys/cache.ts), so a
 * change of a key (a revoke, a delete) must reach every process by the next request, in the same
 * transaction as the change whoever makes it. On SQLite a trigger counts the changes in
 * `change_counts`, which each process reads per request; on PostgreSQL a trigger sends NOTIFY on
 * `tailor_api_keys` (delivered at commit), which each process LISTENs to. An insert changes nothing
 * cached (a key not found is never cached), so it is left out.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') {
    await db.schema
      .createTable('change_counts')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('n', 'bigint', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO change_counts (name, n) VALUES ('api_keys', 0)`.execute(db);
    for (const event of ['UPDATE', 'DELETE'] as const) {
      const name = identifier(`api_keys_changed_${event.toLowerCase()}`);
      await sql
        .raw(
          `CREATE TRIGGER ${name} AFTER ${event} ON api_keys BEGIN
             INSERT INTO change_counts (name, n) VALUES ('api_keys', 1)
             ON CONFLICT (name) DO UPDATE SET n = n + 1;
           END`,
        )
        .execute(db);
    }
    return;
  }
  await sql`CREATE FUNCTION api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('tailor_api_keys', '');
        RETURN NULL;
      END $$`.execute(db);
  // Once per statement is enough (PostgreSQL delivers one notice per transaction and channel), and
  // a statement trigger also sees TRUNCATE, which row triggers do not.
  await sql`CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION api_keys_changed()`.execute(db);
}
