import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger } from './frozen/trigger-v1.ts';

/** Stripes of a tenant's version, as in 0029: writers of different audiences rarely share a row. */
const STRIPES = 16;

const TOTALS = [
  'sessions',
  'interactions',
  'scroll_depth_sum',
  'time_spent_ms_sum',
  'bounces',
  'conversions',
  'cta_sessions',
  'form_submit_sessions',
];

/** The start of the hour in progress on the database's clock, in epoch milliseconds. */
const HOUR_IN_PROGRESS = {
  sqlite: `(CAST(strftime('%s', 'now') AS INTEGER) / 3600 * 3600000)`,
  postgres: `(floor(extract(epoch FROM clock_timestamp()) / 3600) * 3600000)::bigint`,
} as const;

function bump(engine: Engine, row: 'NEW' | 'OLD'): string {
  const last = `substr(${row}.audience_id, length(${row}.audience_id), 1)`;
  const stripe = `(${engine === 'sqlite' ? 'unicode' : 'ascii'}(${last}) % ${STRIPES})`;
  return `INSERT INTO closed_hour_versions (tenant_id, stripe, n) VALUES (${row}.tenant_id, ${stripe}, 1)
    ON CONFLICT (tenant_id, stripe) DO UPDATE SET n = closed_hour_versions.n + 1`;
}

/**
 * A version per tenant of the running totals (0027) at the hours that have ended: triggers add to
 * it when a change moves a running total of an hour before the one in progress (on the database's
 * clock). Analytics of a period that ends now keep the sums of its whole hours, which end before the
 * hour in progress, with this version, and compute only the partial hours afresh
 * (src/resources/sessions/closed-hours.ts). Ingestion writes to the hour in progress almost always,
 * so the version stands still while sessions arrive, where the page's version (0029) moves with
 * every one of them.
 *
 * No insert trigger: a new row copies the totals of the row before it (0027), which leaves every
 * sum unchanged; the update that follows moves them. The upsert that locks an audience's row at
 * hour 0 changes no total, and counts for nothing. A delete (an audience's, a tenant's) counts.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('closed_hour_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('stripe', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('closed_hour_versions_pk', ['tenant_id', 'stripe'])
    .execute();
  const changed = TOTALS.map((column) => `NEW.${column} <> OLD.${column}`).join(' OR ');
  await createTrigger(db, engine, {
    name: 'running_stats_changed_in_closed_hours',
    table: 'audience_running_stats',
    event: `UPDATE OF ${TOTALS.join(', ')}`,
    when: `NEW.hour < ${HOUR_IN_PROGRESS[engine]} AND (${changed})`,
    statements: [bump(engine, 'NEW')],
  });
  await createTrigger(db, engine, {
    name: 'running_stats_removed_in_closed_hours',
    table: 'audience_running_stats',
    event: 'DELETE',
    when: `OLD.hour < ${HOUR_IN_PROGRESS[engine]}`,
    statements: [bump(engine, 'OLD')],
  });
}
