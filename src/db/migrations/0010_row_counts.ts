import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { identifier } from './frozen/identifier.ts';

/** Tables whose unfiltered lists answer totalCount from a counter instead of counting rows. */
const COUNTED_TABLES = ['accounts', 'persons'] as const;

/** Keeps `tenant_row_counts` up to date for `table` with triggers, so a tenant's total needs no count. */
async function createRowCounter(db: Kysely<unknown>, engine: Engine, counted: string): Promise<void> {
  const table = identifier(counted);
  if (engine === 'sqlite') {
    const bump = (row: 'new' | 'old', by: string) =>
      `INSERT INTO tenant_row_counts (tenant_id, name, n) VALUES (${row}.tenant_id, '${table}', ${by})
       ON CONFLICT (tenant_id, name) DO UPDATE SET n = n + ${by};`;
    await sql
      .raw(`CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN ${bump('new', '1')} END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN ${bump('old', '-1')} END`)
      .execute(db);
    return;
  }
  await sql
    .raw(`CREATE FUNCTION ${table}_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN
            INSERT INTO tenant_row_counts (tenant_id, name, n) VALUES (NEW.tenant_id, '${table}', 1)
            ON CONFLICT (tenant_id, name) DO UPDATE SET n = tenant_row_counts.n + 1;
          ELSE
            UPDATE tenant_row_counts SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND name = '${table}';
          END IF;
          RETURN NULL;
        END $$`)
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER ${table}_count AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_count()`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('tenant_row_counts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tenant_row_counts_pk', ['tenant_id', 'name'])
    .execute();
  for (const counted of COUNTED_TABLES) {
    const table = identifier(counted);
    await createRowCounter(db, engine, table);
    // Rows written before the counter existed.
    await sql
      .raw(
        `INSERT INTO tenant_row_counts (tenant_id, name, n) SELECT tenant_id, '${table}', count(*) FROM ${table} GROUP BY tenant_id`,
      )
      .execute(db);
  }
}
