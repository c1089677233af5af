import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * A lead says what its visitor was served (decisions §6): the arm and the version, which the page's
 * token names from now on. A submission made before this step has no version (its page's token did
 * not name one); its arm is the arm of the session it names when that session, on the same page and
 * audience, is still kept (a session's arm came from the same token), and null otherwise.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('form_submissions').addColumn('arm', 'text').execute();
  await db.schema.alterTable('form_submissions').addColumn('version_id', 'text').execute();
  await sql`UPDATE form_submissions SET arm = (
      SELECT sessions.arm FROM sessions
      WHERE sessions.tenant_id = form_submissions.tenant_id AND sessions.id = form_submissions.session_id
        AND sessions.page_id = form_submissions.page_id
        AND sessions.audience_id = form_submissions.audience_id)
    WHERE session_id IS NOT NULL`.execute(db);
}
