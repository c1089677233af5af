import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('audiences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('page_id', 'text', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('custom_name', 'text')
    .addColumn('person_id', 'text', (c) => c.references('persons.id').onDelete('set null'))
    .addColumn('is_new_page_agent', 'integer', (c) => c.notNull())
    .addColumn('action_form_id_override', 'text')
    .addColumn('action_form_instructions_override', 'text')
    .addColumn('action_url_override', 'text')
    .addColumn('supplementary_context', 'text')
    .addColumn('metadata_override', 'text')
    .addColumn('auto_publish', 'integer', (c) => c.notNull())
    .addColumn('latest_version_id', 'text', (c) => c.notNull())
    .addColumn('published_version_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('archived_at', 'bigint')
    .execute();
  await db.schema.createIndex('audiences_by_page').on('audiences').columns(['page_id', 'id']).execute();
  await db.schema
    .createIndex('audiences_number')
    .unique()
    .on('audiences')
    .columns(['page_id', 'number'])
    .execute();
  await db.schema.createIndex('audiences_by_person').on('audiences').column('person_id').execute();

  await db.schema
    .createTable('audience_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('version_number', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('is_new_page_agent', 'integer', (c) => c.notNull())
    .addColumn('supplementary_context', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('failure', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('queued_at', 'bigint')
    .addColumn('processing_started_at', 'bigint')
    .addColumn('became_draft_at', 'bigint')
    .addColumn('published_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .addColumn('obsolete_at', 'bigint')
    .addColumn('archived_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('audience_versions_number')
    .unique()
    .on('audience_versions')
    .columns(['audience_id', 'version_number'])
    .execute();
}
