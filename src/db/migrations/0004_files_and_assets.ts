import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createSearchIndex, searchableTable } from './frozen/search-index-v1.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('has_preview', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addColumn('bytes_removed_at', 'bigint')
    .execute();
  await db.schema.createIndex('files_by_tenant').on('files').columns(['tenant_id', 'id']).execute();
  // The purge finds files given up whose bytes are still stored (normally none: only after a crash).
  await db.schema
    .createIndex('files_removal_pending')
    .on('files')
    .columns(['bytes_removed_at', 'deleted_at'])
    .execute();

  await searchableTable(db, engine, 'assets')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('tags_text', 'text', (c) => c.notNull())
    .addColumn('ai_description', 'text')
    .addColumn('parent_asset_id', 'text', (c) => c.references('assets.id'))
    .addColumn('hidden', 'integer', (c) => c.notNull())
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id'))
    .addColumn('lifecycle_state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('trashed_at', 'bigint')
    .addColumn('deleted_at', 'bigint')
    .execute();
  // Lists by state, newest first.
  await db.schema
    .createIndex('assets_by_state')
    .on('assets')
    .columns(['tenant_id', 'lifecycle_state', 'id'])
    .execute();
  // The trash list: most recently trashed first, keyset on (trashed_at, id).
  await db.schema
    .createIndex('assets_by_trashed_at')
    .on('assets')
    .columns(['tenant_id', 'lifecycle_state', 'trashed_at', 'id'])
    .execute();
  // The purge, across tenants: trashed assets whose 30 days are up.
  await db.schema
    .createIndex('assets_trash_expiry')
    .on('assets')
    .columns(['lifecycle_state', 'trashed_at'])
    .execute();
  // Whether any asset still uses a file, before its bytes are removed.
  await db.schema
    .createIndex('assets_by_file')
    .on('assets')
    .columns(['file_id', 'lifecycle_state'])
    .execute();
  await createSearchIndex(db, engine, 'assets', ['name', 'purpose', 'tags_text']);
}
