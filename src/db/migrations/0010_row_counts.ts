import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** Tables whose unfiltered lists answer totalCount from a counter instead of counting rows. */
export const COUNTED_TABLES = ['accounts', 'persons'] as const;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('tenant_row_counts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tenant_row_counts_pk', ['tenant_id', 'name'])
    .execute();
  for (const table of COUNTED_TABLES) {
    await dialect.createRowCounter(db, table);
    // Rows written before the counter existed.
    await sql
      .raw(
        `INSERT INTO tenant_row_counts (tenant_id, name, n) SELECT tenant_id, '${table}', count(*) FROM ${table} GROUP BY tenant_id`,
      )
      .execute(db);
  }
}
