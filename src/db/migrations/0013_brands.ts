import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/** Brand profiles, and topics scoped to brands. */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('brands')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('website', 'text')
    .addColumn('logo_asset_id', 'text')
    .addColumn('color_primary', 'text')
    .addColumn('color_accent', 'text')
    .addColumn('voice', 'text')
    .addColumn('footer_text', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('brands_by_brand_id')
    .unique()
    .on('brands')
    .columns(['tenant_id', 'brand_id'])
    .execute();
  await db.schema.createIndex('brands_by_tenant').on('brands').columns(['tenant_id', 'id']).execute();

  // JSON array of brand ids; [] means every brand.
  await db.schema
    .alterTable('topics')
    .addColumn('brand_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
