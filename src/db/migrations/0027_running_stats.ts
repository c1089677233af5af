import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger } from './frozen/trigger-v1.ts';

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
const KEY = 'tenant_id, audience_id, hour';
const COLUMNS = `${KEY}, ${TOTALS.join(', ')}`;
const OF_THE_AUDIENCE = 'tenant_id = NEW.tenant_id AND audience_id = NEW.audience_id';

/**
 * Moves the running totals by `change(column)` of one hourly row: makes sure the audience has its
 * row at hour 0 (nothing before any session, what a lookup of the earliest hours finds) and a row at
 * the hour, holding the totals before it, then adds the change to that row and every later one.
 * Changes come to the newest hours almost always, so this is one or two rows.
 *
 * The row at hour 0 is also the audience's lock: its upsert locks it until the transaction ends, so
 * on PostgreSQL the writers of one audience take turns, and a new hour's row copies totals with
 * every earlier writer's change in them (under READ COMMITTED each statement of a trigger sees what
 * committed before it began). Without it, a writer adding to an earlier hour and one starting a
 * later hour at once would each miss the other's change. SQLite runs one writer at a time anyway.
 */
const addFromHour = (change: (column: string) => string) => [
  `INSERT INTO audience_running_stats (${COLUMNS})
   VALUES (NEW.tenant_id, NEW.audience_id, 0, ${TOTALS.map(() => '0').join(', ')})
   ON CONFLICT (${KEY}) DO UPDATE SET sessions = audience_running_stats.sessions`,
  `INSERT INTO audience_running_stats (${COLUMNS})
   SELECT NEW.tenant_id, NEW.audience_id, NEW.hour, ${TOTALS.map((column) => `earlier.${column}`).join(', ')}
   FROM audience_running_stats earlier
   WHERE earlier.tenant_id = NEW.tenant_id AND earlier.audience_id = NEW.audience_id AND earlier.hour = (
     SELECT max(hour) FROM audience_running_stats WHERE ${OF_THE_AUDIENCE} AND hour < NEW.hour)
   ON CONFLICT (${KEY}) DO NOTHING`,
  `UPDATE audience_running_stats SET ${TOTALS.map((column) => `${column} = ${column} + ${change(column)}`).join(', ')}
   WHERE ${OF_THE_AUDIENCE} AND hour >= NEW.hour`,
];

/**
 * Running totals per audience (both arms together): the row at an hour holds the sums of every hour
 * of the audience up to and including it, and there is a row at each hour the audience has sessions
 * in, and at hour 0. The sums of any whole hours [from, to) are then the latest row before `to`
 * less the latest row before `from`: two index lookups per audience, however long the period, where
 * summing the daily and hourly rollups read one row per audience per day and per hour of the edges.
 * Kept by triggers on the hourly rollups (like the daily ones of 0016), in the statement that
 * changes the hour. The row at hour 0 also lets one statement find every audience of a list by key.
 *
 * Analytics read a period's partial hours from the sessions of the page, by `sessions_by_page`:
 * one range of the index instead of one lookup per audience.
 *
 * The triggers come before the backfill, for the reason 0016 gives.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  let table = db.schema
    .createTable('audience_running_stats')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull());
  for (const column of TOTALS) table = table.addColumn(column, 'bigint', (c) => c.notNull());
  table = table.addPrimaryKeyConstraint('audience_running_stats_pk', ['tenant_id', 'audience_id', 'hour']);
  await (engine === 'sqlite' ? table.modifyEnd(sql`WITHOUT ROWID`) : table).execute();

  await createTrigger(db, engine, {
    name: 'audience_hours_added_to_running',
    table: 'audience_hourly_stats',
    event: 'INSERT',
    statements: addFromHour((column) => `NEW.${column}`),
  });
  await createTrigger(db, engine, {
    name: 'audience_hours_changed_in_running',
    table: 'audience_hourly_stats',
    event: `UPDATE OF ${TOTALS.join(', ')}`,
    statements: addFromHour((column) => `(NEW.${column} - OLD.${column})`),
  });

  const running = TOTALS.map(
    (column) => `sum(sum(${column})) OVER (PARTITION BY tenant_id, audience_id ORDER BY hour)`,
  );
  await sql
    .raw(
      `INSERT INTO audience_running_stats (${COLUMNS})
       SELECT tenant_id, audience_id, hour, ${running.join(', ')} FROM audience_hourly_stats
       GROUP BY tenant_id, audience_id, hour`,
    )
    .execute(db);
  await sql
    .raw(
      `INSERT INTO audience_running_stats (${COLUMNS})
       SELECT DISTINCT tenant_id, audience_id, 0, ${TOTALS.map(() => '0').join(', ')} FROM audience_hourly_stats
       WHERE true ON CONFLICT (${KEY}) DO NOTHING`,
    )
    .execute(db);

  await db.schema
    .createIndex('sessions_by_page')
    .on('sessions')
    .columns(['tenant_id', 'page_id', 'started_at'])
    .execute();
}
