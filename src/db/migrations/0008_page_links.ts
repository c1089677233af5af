import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('page_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('tenant_domain_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  // A path belongs to one live link per tenant; deleted links keep theirs without blocking reuse.
  await db.schema
    .createIndex('page_links_live_path')
    .unique()
    .on('page_links')
    .columns(['tenant_id', 'path'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('page_links_by_tenant')
    .on('page_links')
    .columns(['tenant_id', 'deleted_at', 'id'])
    .execute();
  await db.schema.createIndex('page_links_by_audience').on('page_links').column('audience_id').execute();
}
