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

/**
 * SQLite: a change to an hourly row moves the running totals (0027) with their one UPDATE. The
 * trigger of 0027 ran two statements before it that change nothing there: the upsert of the
 * audience's row at hour 0, which on PostgreSQL is the lock that makes the audience's writers take
 * turns (SQLite has one writer at a time), and the insert of the row at the hour, which the hour's
 * insert made (0027's insert trigger, or its backfill), and which nothing deletes but its audience's
 * delete, which deletes the hourly row too. Nearly every batch of events updates an hourly row (the
 * first session of an audience's hour inserts it), so nearly every batch ran both, about 3 µs with
 * the lookup of the earlier hour. PostgreSQL keeps 0027's trigger as it is: it needs the lock.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'sqlite') return;
  await sql`DROP TRIGGER audience_hours_changed_in_running`.execute(db);
  await createTrigger(db, engine, {
    name: 'audience_hours_changed_in_running',
    table: 'audience_hourly_stats',
    event: `UPDATE OF ${TOTALS.join(', ')}`,
    statements: [
      `UPDATE audience_running_stats SET ${TOTALS.map((column) => `${column} = ${column} + (NEW.${column} - OLD.${column})`).join(', ')}
       WHERE tenant_id = NEW.tenant_id AND audience_id = NEW.audience_id AND hour >= NEW.hour`,
    ],
  });
}
