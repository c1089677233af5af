import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/** Job kinds before they followed the `<what>.<verb>` style of scheduled tasks. */
const RENAMED_JOB_KINDS = {
  'audience.generate': 'versions.generate',
  'webhook.deliver': 'deliveries.send',
  'form.enrich': 'submissions.enrich',
};
/** Scheduled tasks that were renamed; their rows go, and workers make the new ones. */
const RENAMED_TASKS = ['pages.purge-deleted', 'purge-trashed-assets'];

/** One name for one thing: visitor sessions are `sessions`; jobs and tasks are `<what>.<verb>`. */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await sql`ALTER TABLE visit_sessions RENAME TO sessions`.execute(db);
  await sql`DROP INDEX visit_sessions_by_audience`.execute(db);
  await db.schema
    .createIndex('sessions_by_audience')
    .on('sessions')
    .columns(['tenant_id', 'audience_id', 'started_at'])
    .execute();
  for (const [from, to] of Object.entries(RENAMED_JOB_KINDS)) {
    await sql`UPDATE jobs SET kind = ${to} WHERE kind = ${from}`.execute(db);
  }
  for (const name of RENAMED_TASKS) await sql`DELETE FROM schedules WHERE name = ${name}`.execute(db);
}
