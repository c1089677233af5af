import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger } from './frozen/trigger-v1.ts';

/**
 * A session's activity is its person's activity: every insert of a session and every move of its
 * `last_event_at` moves the latest activity of its audience's person (when the audience is for a
 * person) to that instant, never back, and by 0011's trigger their account's. A derived column kept
 * by the database, as 0011's are: the batch of events no longer reads the audience's person and
 * then stages the activity itself, two statements (on PostgreSQL two round trips) of every batch.
 *
 * On SQLite the trigger moves the person at once (what 0028's staged row did, without the row). On
 * PostgreSQL it stages the change in `person_activity_changes`, which 0028's deferred trigger applies
 * at the commit, so the person's row stays off the commit path of the batches of their audience.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const personOfSession = `SELECT audiences.person_id FROM audiences
     WHERE audiences.tenant_id = NEW.tenant_id AND audiences.id = NEW.audience_id`;
  const moveActivity =
    engine === 'sqlite'
      ? `UPDATE persons SET latest_activity_at = NEW.last_event_at
         WHERE tenant_id = NEW.tenant_id AND id = (${personOfSession})
         AND (latest_activity_at IS NULL OR latest_activity_at < NEW.last_event_at)`
      : `INSERT INTO person_activity_changes (tenant_id, person_id, at)
         SELECT audiences.tenant_id, audiences.person_id, NEW.last_event_at FROM audiences
         WHERE audiences.tenant_id = NEW.tenant_id AND audiences.id = NEW.audience_id
         AND audiences.person_id IS NOT NULL`;
  await createTrigger(db, engine, {
    name: 'sessions_started_in_person_activity',
    table: 'sessions',
    event: 'INSERT',
    statements: [moveActivity],
  });
  await createTrigger(db, engine, {
    name: 'sessions_moved_in_person_activity',
    table: 'sessions',
    event: 'UPDATE OF last_event_at',
    statements: [moveActivity],
  });
}
