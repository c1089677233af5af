import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createSearchIndex, searchableTable } from './frozen/search-index-v1.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await searchableTable(db, engine, 'pages')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('page_context', 'text', (c) => c.notNull())
    .addColumn('page_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('actions', 'text', (c) => c.notNull())
    .addColumn('action_card_widgets', 'text', (c) => c.notNull())
    .addColumn('scripts', 'text', (c) => c.notNull())
    .addColumn('footer_links', 'text')
    .addColumn('header_action_id', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('archived_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  // Lists and search skip deleted pages; the purge finds deleted pages by age.
  await db.schema
    .createIndex('pages_by_tenant')
    .on('pages')
    .columns(['tenant_id', 'deleted_at', 'id'])
    .execute();
  await db.schema.createIndex('pages_deleted').on('pages').column('deleted_at').execute();
  await createSearchIndex(db, engine, 'pages', ['name', 'title']);
}
