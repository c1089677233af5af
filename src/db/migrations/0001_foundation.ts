import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createSearchIndex, searchableTable } from './frozen/search-index-v1.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);

  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_by_tenant').on('api_keys').columns(['tenant_id', 'id']).execute();

  await searchableTable(db, engine, 'accounts')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('accounts_by_domain')
    .unique()
    .on('accounts')
    .columns(['tenant_id', 'domain'])
    .execute();
  await db.schema.createIndex('accounts_by_tenant').on('accounts').columns(['tenant_id', 'id']).execute();
  await createSearchIndex(db, engine, 'accounts', ['name', 'domain']);

  await db.schema
    .createTable('persons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('email_key', 'text')
    .addColumn('domain', 'text')
    .addColumn('domain_given', 'integer', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text')
    .addColumn('linkedin_profile_url', 'text')
    .addColumn('latest_activity_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('persons_by_tenant').on('persons').columns(['tenant_id', 'id']).execute();
  await db.schema
    .createIndex('persons_by_slug')
    .unique()
    .on('persons')
    .columns(['tenant_id', 'slug'])
    .execute();
  await db.schema
    .createIndex('persons_by_email')
    .unique()
    .on('persons')
    .columns(['tenant_id', 'email_key'])
    .execute();
  await db.schema
    .createIndex('persons_by_account')
    .on('persons')
    .columns(['account_id', 'updated_at', 'id'])
    .execute();

  await db.schema
    .createTable('person_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('person_logs_by_person')
    .on('person_logs')
    .columns(['person_id', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('locked_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'scope', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_by_expiry')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}
