import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * What visitors write is told apart and kept for a bounded time. Person log entries get `source`:
 * `user` for notes, `service` for what Tailor writes from what it knows, `visitor` for what a
 * visitor wrote (a form): until now every activity entry came from a form. Indexes serve the purge
 * of form submissions, and of the log entries made from them, past their retention.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('person_logs')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('visitor'))
    .execute();
  // An entry that says nothing of its source is taken for a visitor's, which never guides generation.
  await sql`UPDATE person_logs SET source = 'user' WHERE kind = 'note'`.execute(db);
  await db.schema
    .createIndex('person_logs_from_visitors')
    .on('person_logs')
    .column('created_at')
    .where(sql.ref('source'), '=', 'visitor')
    .execute();
  await db.schema
    .createIndex('form_submissions_by_age')
    .on('form_submissions')
    .column('submitted_at')
    .execute();
}
