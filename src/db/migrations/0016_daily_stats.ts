import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger } from './frozen/trigger-v1.ts';

/** The sums a rollup keeps, with the types of the hourly ones: counts of sessions fit an integer. */
const TOTAL_TYPES = {
  sessions: 'integer',
  interactions: 'bigint',
  scroll_depth_sum: 'bigint',
  time_spent_ms_sum: 'bigint',
  bounces: 'integer',
  conversions: 'integer',
  cta_sessions: 'integer',
  form_submit_sessions: 'integer',
} as const;
const TOTALS = Object.keys(TOTAL_TYPES);
const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day an hour of the hourly rollups falls in, as the epoch milliseconds of its midnight. */
const dayOf = (hour: string) => `${hour} - ${hour} % ${DAY_MS}`;

/** Adds `change(column)` of one hourly row to the totals of its day, starting the day when it has none. */
const addToDay = (change: (column: string) => string) =>
  `INSERT INTO audience_daily_stats (tenant_id, audience_id, day, arm, ${TOTALS.join(', ')})
   VALUES (NEW.tenant_id, NEW.audience_id, ${dayOf('NEW.hour')}, NEW.arm, ${TOTALS.map(change).join(', ')})
   ON CONFLICT (tenant_id, audience_id, day, arm) DO UPDATE SET
   ${TOTALS.map((column) => `${column} = audience_daily_stats.${column} + excluded.${column}`).join(', ')}`;

/**
 * Daily rollups beside the hourly ones, per audience, UTC day and arm, so that analytics read one row
 * per day for the whole days of a period instead of 24. They sum up `audience_hourly_stats` and are
 * kept by the database like the derived columns of 0011: triggers add each hourly insert and each
 * change of an hourly row to its day, in the same transaction, so no code maintains them. Rows go
 * with their audience (the foreign key cascades), as the hourly ones do. The table is kept in key
 * order where the database can (SQLite's WITHOUT ROWID): an audience's days are adjacent however
 * the days were written.
 *
 * The triggers come before the backfill: on PostgreSQL, creating them waits for the writers of the
 * hourly table in flight and holds off new ones until this migration commits, so the backfill sees
 * every hourly row written before and the triggers every one written after.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  let table = db.schema
    .createTable('audience_daily_stats')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('arm', 'text', (c) => c.notNull());
  for (const [column, type] of Object.entries(TOTAL_TYPES)) {
    table = table.addColumn(column, type, (c) => c.notNull());
  }
  table = table.addPrimaryKeyConstraint('audience_daily_stats_pk', [
    'tenant_id',
    'audience_id',
    'day',
    'arm',
  ]);
  // SQLite stores the rows in the key's order, so a run of the key is a few adjacent pages.
  await (engine === 'sqlite' ? table.modifyEnd(sql`WITHOUT ROWID`) : table).execute();

  await createTrigger(db, engine, {
    name: 'audience_hours_added_to_day',
    table: 'audience_hourly_stats',
    event: 'INSERT',
    statements: [addToDay((column) => `NEW.${column}`)],
  });
  await createTrigger(db, engine, {
    name: 'audience_hours_changed_in_day',
    table: 'audience_hourly_stats',
    event: `UPDATE OF ${TOTALS.join(', ')}`,
    statements: [addToDay((column) => `NEW.${column} - OLD.${column}`)],
  });

  const columns = sql.join(TOTALS.map((column) => sql.ref(column)));
  const sums = sql.join(TOTALS.map((column) => sql`sum(${sql.ref(column)})`));
  const day = sql.raw(dayOf('hour'));
  await sql`INSERT INTO audience_daily_stats (tenant_id, audience_id, day, arm, ${columns})
    SELECT tenant_id, audience_id, ${day}, arm, ${sums} FROM audience_hourly_stats
    GROUP BY tenant_id, audience_id, ${day}, arm`.execute(db);
}
