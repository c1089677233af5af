import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger } from './frozen/trigger-v1.ts';

/**
 * Columns that sum up another table, kept by the database the way foreign keys keep references:
 * no code maintains them, so each resource reads only its own table. A page counts its audiences
 * that are not archived; an account counts its linked persons and keeps the latest activity of any
 * of them.
 */

/** The later of a column and NEW's value of it (a person's latest activity only ever moves forward). */
const later = (column: string) =>
  `CASE WHEN ${column} IS NULL OR ${column} < NEW.${column} THEN NEW.${column} ELSE ${column} END`;
const latestOf = (account: string) =>
  `(SELECT max(p.latest_activity_at) FROM persons p WHERE p.account_id = ${account})`;

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .alterTable('pages')
    .addColumn('audiences_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE pages SET audiences_count = (SELECT count(*) FROM audiences a WHERE a.page_id = pages.id AND a.archived_at IS NULL)`.execute(
    db,
  );
  const countAudiences = (by: string, page: string) =>
    `UPDATE pages SET audiences_count = audiences_count + ${by} WHERE id = ${page}.page_id`;
  await createTrigger(db, engine, {
    name: 'audiences_counted_on_insert',
    table: 'audiences',
    event: 'INSERT',
    when: 'NEW.archived_at IS NULL',
    statements: [countAudiences('1', 'NEW')],
  });
  await createTrigger(db, engine, {
    name: 'audiences_counted_on_archive',
    table: 'audiences',
    event: 'UPDATE OF archived_at',
    when: '(OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL)',
    statements: [countAudiences('(CASE WHEN NEW.archived_at IS NULL THEN 1 ELSE -1 END)', 'NEW')],
  });
  await createTrigger(db, engine, {
    name: 'audiences_counted_on_delete',
    table: 'audiences',
    event: 'DELETE',
    when: 'OLD.archived_at IS NULL',
    statements: [countAudiences('-1', 'OLD')],
  });

  await db.schema
    .alterTable('accounts')
    .addColumn('linked_persons_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('latest_activity_at', 'bigint').execute();
  await sql`UPDATE accounts SET linked_persons_count = (SELECT count(*) FROM persons p WHERE p.account_id = accounts.id), latest_activity_at = ${sql.raw(latestOf('accounts.id'))}`.execute(
    db,
  );
  const link = (account: string) =>
    `UPDATE accounts SET linked_persons_count = linked_persons_count + 1, latest_activity_at = ${later('latest_activity_at')} WHERE id = ${account}`;
  const unlink = (account: string) =>
    `UPDATE accounts SET linked_persons_count = linked_persons_count - 1, latest_activity_at = ${latestOf(account)} WHERE id = ${account}`;
  await createTrigger(db, engine, {
    name: 'persons_linked_on_insert',
    table: 'persons',
    event: 'INSERT',
    when: 'NEW.account_id IS NOT NULL',
    statements: [link('NEW.account_id')],
  });
  await createTrigger(db, engine, {
    name: 'persons_unlinked_on_delete',
    table: 'persons',
    event: 'DELETE',
    when: 'OLD.account_id IS NOT NULL',
    statements: [unlink('OLD.account_id')],
  });
  await createTrigger(db, engine, {
    name: 'persons_relinked_on_update',
    table: 'persons',
    event: 'UPDATE OF account_id',
    when: 'OLD.account_id IS DISTINCT FROM NEW.account_id',
    statements: [unlink('OLD.account_id'), link('NEW.account_id')],
  });
  await createTrigger(db, engine, {
    name: 'persons_activity_on_update',
    table: 'persons',
    event: 'UPDATE OF latest_activity_at',
    when: 'OLD.account_id IS NOT DISTINCT FROM NEW.account_id AND NEW.latest_activity_at IS NOT NULL',
    statements: [
      `UPDATE accounts SET latest_activity_at = ${later('latest_activity_at')} WHERE id = NEW.account_id`,
    ],
  });
}
