import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger, type Trigger } from './frozen/trigger-v1.ts';

/**
 * What is served, kept ready (docs/public-pages.md, "The served-page read model"): `served_pages`
 * holds, per page address and arm, the rendered page, its gzip bytes and its ETag; it is read in
 * one statement joined with `serving_generations`, the tenant's serving generation, and a row
 * counts only while it was built at the current one. Triggers bump the generation in the
 * transaction of every change to what a page shows, so that the change and the end of every row
 * it made stale commit together, on every node at once.
 */

/** Bumps the generation of the tenant of `row` (NEW or OLD), when `condition` holds. */
const bump = (row: 'NEW' | 'OLD', condition = '') =>
  `UPDATE serving_generations SET generation = generation + 1 WHERE tenant_id = ${row}.tenant_id${condition}`;

/** An insert, an update of `columns` and a delete of `table` each bump its tenant's generation. */
function onChange(table: string, columns: string[], events: ('INSERT' | 'UPDATE' | 'DELETE')[]): Trigger[] {
  return events.map((event) => ({
    name: `serving_${table}_${event.toLowerCase()}`,
    table,
    event: event === 'UPDATE' ? `UPDATE OF ${columns.join(', ')}` : event,
    statements: [bump(event === 'DELETE' ? 'OLD' : 'NEW')],
  }));
}

/** Every table a served page is made from, with the columns of each that it shows or is found by. */
const TRIGGERS: Trigger[] = [
  ...onChange(
    'pages',
    [
      'title',
      'status',
      'brand_id',
      'actions',
      'action_card_widgets',
      'scripts',
      'footer_links',
      'header_action_id',
      'metadata',
      'archived_at',
      'deleted_at',
    ],
    ['UPDATE', 'DELETE'],
  ),
  ...onChange(
    'audiences',
    [
      'page_id',
      'person_id',
      'action_form_instructions_override',
      'action_url_override',
      'metadata_override',
      'holdout_percent',
      'published_version_id',
      'archived_at',
    ],
    ['UPDATE', 'DELETE'],
  ),
  ...onChange(
    'page_links',
    ['path', 'audience_id', 'tenant_domain_id', 'deleted_at'],
    ['INSERT', 'UPDATE', 'DELETE'],
  ),
  ...onChange(
    'brands',
    ['brand_id', 'name', 'website', 'logo_asset_id', 'color_primary', 'color_accent', 'footer_text'],
    ['INSERT', 'UPDATE', 'DELETE'],
  ),
  ...onChange('tenant_domains', ['hostname'], ['INSERT', 'UPDATE', 'DELETE']),
  // An asset or a file a page shows stops being shown once deleted.
  ...onChange('assets', ['file_id', 'lifecycle_state'], ['UPDATE']),
  ...onChange('files', ['deleted_at'], ['UPDATE']),
  {
    // Only the content of a version that is served: the published one, or the baseline (a
    // holdout's). Versions being generated write theirs without touching any page.
    name: 'serving_audience_versions_update',
    table: 'audience_versions',
    event: 'UPDATE OF content',
    statements: [
      bump(
        'NEW',
        ` AND (NEW.version_number = 0 OR EXISTS (SELECT 1 FROM audiences WHERE audiences.tenant_id = NEW.tenant_id AND audiences.published_version_id = NEW.id))`,
      ),
    ],
  },
  {
    name: 'serving_tenants_insert',
    table: 'tenants',
    event: 'INSERT',
    statements: ['INSERT INTO serving_generations (tenant_id, generation) VALUES (NEW.id, 1)'],
  },
  {
    name: 'serving_tenants_update',
    table: 'tenants',
    event: 'UPDATE OF slug',
    statements: ['UPDATE serving_generations SET generation = generation + 1 WHERE tenant_id = NEW.id'],
  },
];

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('serving_generations')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .execute();
  const table = db.schema
    .createTable('served_pages')
    // `s {slug}{path}` on the shared address, `d {hostname}{path}` on a tenant domain.
    .addColumn('address_key', 'text', (c) => c.notNull())
    .addColumn('arm', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addColumn('audience_id', 'text', (c) => c.notNull())
    .addColumn('holdout_percent', 'integer', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('gzip', engine === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn('token_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('built_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('served_pages_pk', ['address_key', 'arm']);
  await (engine === 'sqlite' ? table.modifyEnd(sql`WITHOUT ROWID`) : table).execute();
  await db.schema
    .createIndex('served_pages_by_generation')
    .on('served_pages')
    .columns(['tenant_id', 'generation'])
    .execute();
  // Triggers before the backfill, as in 0016: a tenant made meanwhile gets its row from either.
  for (const trigger of TRIGGERS) await createTrigger(db, engine, trigger);
  await sql`INSERT INTO serving_generations (tenant_id, generation) SELECT id, 1 FROM tenants WHERE id NOT IN (SELECT tenant_id FROM serving_generations)`.execute(
    db,
  );
}
