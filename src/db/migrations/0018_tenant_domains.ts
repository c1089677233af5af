import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * Tenant domains: a tenant's own hosts for its pages. A hostname belongs to one tenant across the
 * whole service. Page links' paths become unique per domain (the tenant's shared address being the
 * domain ''), and a link's tenant_domain_id, free text until now and served at the shared address
 * whatever it held, is cleared: no domain existed for it to name, so every link keeps its address.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('tenant_domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tenant_domains_by_hostname')
    .unique()
    .on('tenant_domains')
    .column('hostname')
    .execute();
  await db.schema
    .createIndex('tenant_domains_by_tenant')
    .on('tenant_domains')
    .columns(['tenant_id', 'id'])
    .execute();

  await sql`UPDATE page_links SET tenant_domain_id = NULL`.execute(db);
  await db.schema.dropIndex('page_links_live_path').execute();
  await sql`CREATE UNIQUE INDEX page_links_live_path ON page_links (tenant_id, COALESCE(tenant_domain_id, ''), path) WHERE deleted_at IS NULL`.execute(
    db,
  );
}
