import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * Analytics read a period's partial hours from the sessions of the page (the hour in progress among
 * them, where sessions arrive): on SQLite, `sessions_by_page` (0027) found them and each was then
 * read from the table, about 1.3 µs a session. With the figures the sums need in the index, SQLite
 * reads the index alone. PostgreSQL keeps the narrower index: a session's figures change with each
 * of its batches, and an index on them would keep PostgreSQL from updating its rows in place.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'sqlite') return;
  await db.schema
    .createIndex('sessions_by_page_with_figures')
    .on('sessions')
    .columns([
      'tenant_id',
      'page_id',
      'started_at',
      'audience_id',
      'interactions',
      'cta_clicks',
      'form_submits',
      'max_scroll_depth',
      'time_spent_ms',
    ])
    .execute();
  await db.schema.dropIndex('sessions_by_page').execute();
}
