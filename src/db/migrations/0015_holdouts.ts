import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

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

/**
 * Holdouts: the share of an audience's visitors served the baseline, the arm each session was
 * served, and hourly rollups kept per arm, so that the lift of one arm over the other is read from
 * rollups. Existing sessions were all served the personalized page. The rollup table is rebuilt
 * (its key gains the arm), the same way on both databases.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('audiences')
    .addColumn('holdout_percent', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('sessions')
    .addColumn('arm', 'text', (c) => c.notNull().defaultTo('personalized'))
    .execute();

  await db.schema
    .createTable('audience_arm_hourly_stats')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('arm', 'text', (c) => c.notNull())
    .addColumn('sessions', 'integer', (c) => c.notNull())
    .addColumn('interactions', 'bigint', (c) => c.notNull())
    .addColumn('scroll_depth_sum', 'bigint', (c) => c.notNull())
    .addColumn('time_spent_ms_sum', 'bigint', (c) => c.notNull())
    .addColumn('bounces', 'integer', (c) => c.notNull())
    .addColumn('conversions', 'integer', (c) => c.notNull())
    .addColumn('cta_sessions', 'integer', (c) => c.notNull())
    .addColumn('form_submit_sessions', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('audience_arm_hourly_stats_pk', ['audience_id', 'hour', 'arm'])
    .execute();
  const columns = sql.join(TOTALS.map((column) => sql.ref(column)));
  await sql`INSERT INTO audience_arm_hourly_stats (tenant_id, audience_id, hour, arm, ${columns})
    SELECT tenant_id, audience_id, hour, 'personalized', ${columns} FROM audience_hourly_stats`.execute(db);
  await db.schema.dropTable('audience_hourly_stats').execute();
  await sql`ALTER TABLE audience_arm_hourly_stats RENAME TO audience_hourly_stats`.execute(db);
}
