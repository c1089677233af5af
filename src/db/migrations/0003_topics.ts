import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createSearchIndex, searchableTable } from './frozen/search-index-v1.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await searchableTable(db, engine, 'topics')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('sort_order', 'bigint', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The list order (sortOrder, then newest first), so that a keyset page starts by index seek.
  await db.schema
    .createIndex('topics_in_order')
    .on('topics')
    .columns(['tenant_id', 'sort_order', 'id desc'])
    .execute();
  // At most one default topic per tenant, even when two are created at once.
  await db.schema
    .createIndex('topics_one_default')
    .unique()
    .on('topics')
    .column('tenant_id')
    .where(sql<SqlBool>`is_default = 1`)
    .execute();
  await createSearchIndex(db, engine, 'topics', ['title', 'purpose']);

  await searchableTable(db, engine, 'topic_entries')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('topic_id', 'text', (c) => c.notNull().references('topics.id'))
    .addColumn('sort_order', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('content_text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('topic_entries_in_order')
    .on('topic_entries')
    .columns(['topic_id', 'sort_order', 'id desc'])
    .execute();
  await createSearchIndex(db, engine, 'topic_entries', ['content_text']);
}
