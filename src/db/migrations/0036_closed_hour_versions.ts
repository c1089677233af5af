import { type Kysely, sql } from 'kysely';
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

const STRIPE = (engine: Engine, audience: string) =>
  `(${engine === 'sqlite' ? 'unicode' : 'ascii'}(substr(${audience}, length(${audience}), 1)) % ${STRIPES})`;

const ADD_ONE = 'ON CONFLICT (tenant_id, stripe) DO UPDATE SET n = closed_hour_versions.n + 1';

/** A total of an updated row moved (`NEW` and `OLD` the row after and before). */
const totalsMoved = (after: string, before: string) =>
  TOTALS.map((column) => `${after}.${column} <> ${before}.${column}`).join(' OR ');

/**
 * SQLite: row triggers on the hourly rollups, each adding one to the stripe of the row's audience
 * when the row is of an hour that has ended (SQLite updates a row in place, so a statement over many
 * rows costs an upsert each).
 */
async function rowTriggers(db: Kysely<unknown>): Promise<void> {
  const bump = (row: 'NEW' | 'OLD') =>
    `INSERT INTO closed_hour_versions (tenant_id, stripe, n) VALUES (${row}.tenant_id, ${STRIPE('sqlite', `${row}.audience_id`)}, 1) ${ADD_ONE}`;
  const ended = (row: 'NEW' | 'OLD') => `${row}.hour < ${HOUR_IN_PROGRESS.sqlite}`;
  const triggers = [
    ['added', 'INSERT', ended('NEW'), 'NEW'],
    [
      'changed',
      `UPDATE OF ${TOTALS.join(', ')}`,
      `${ended('NEW')} AND (${totalsMoved('NEW', 'OLD')})`,
      'NEW',
    ],
    ['removed', 'DELETE', ended('OLD'), 'OLD'],
  ] as const;
  for (const [name, event, when, row] of triggers) {
    await createTrigger(db, 'sqlite', {
      name: `hourly_stats_${name}_in_closed_hours`,
      table: 'audience_hourly_stats',
      event,
      when,
      statements: [bump(row)],
    });
  }
}

/**
 * PostgreSQL: statement triggers on the hourly rollups, adding one to each stripe with a row of an
 * hour that has ended among the statement's rows, from its transition tables. A row trigger would
 * update a stripe's row once per row, and PostgreSQL writes a new version of a row at each update,
 * which the next update of the same transaction walks past: a statement over many past hours (a
 * backfill, a purge) would take time in the square of its rows (0029 says the same of the page's
 * version). On the running totals themselves, each hourly row's trigger (0027) runs statements of
 * its own, so a trigger there would run once per hourly row: the same square. Grouped and ordered
 * by stripe, so that two statements lock the stripes they share in the same order.
 */
async function statementTriggers(db: Kysely<unknown>): Promise<void> {
  const ended = (rows: string) => `${rows}.hour < ${HOUR_IN_PROGRESS.postgres}`;
  const triggers = [
    {
      name: 'added',
      event: 'INSERT',
      referencing: 'NEW TABLE AS new_rows',
      rows: `new_rows WHERE ${ended('new_rows')}`,
      row: 'new_rows',
    },
    {
      name: 'changed',
      event: 'UPDATE',
      referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
      rows: `new_rows JOIN old_rows USING (tenant_id, audience_id, hour, arm)
        WHERE ${ended('new_rows')} AND (${totalsMoved('new_rows', 'old_rows')})`,
      row: 'new_rows',
    },
    {
      name: 'removed',
      event: 'DELETE',
      referencing: 'OLD TABLE AS old_rows',
      rows: `old_rows WHERE ${ended('old_rows')}`,
      row: 'old_rows',
    },
  ];
  for (const { name, event, referencing, rows, row } of triggers) {
    const trigger = `hourly_stats_${name}_in_closed_hours`;
    await sql
      .raw(
        `CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           INSERT INTO closed_hour_versions (tenant_id, stripe, n)
           SELECT ${row}.tenant_id, ${STRIPE('postgres', `${row}.audience_id`)}, 1 FROM ${rows}
           GROUP BY 1, 2 ORDER BY 1, 2 ${ADD_ONE};
           RETURN NULL;
         END $$`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${trigger} AFTER ${event} ON audience_hourly_stats REFERENCING ${referencing}
         FOR EACH STATEMENT EXECUTE FUNCTION ${trigger}()`,
      )
      .execute(db);
  }
}

/**
 * A version per tenant of the analytics of the hours that have ended: triggers add to it when a
 * change moves an hourly rollup (and so the running totals, 0027) of an hour before the one in
 * progress, on the database's clock. Analytics of a period that ends now keep the sums of its whole
 * hours, which end before the hour in progress, with this version, and compute only the partial
 * hours afresh (src/resources/sessions/service.ts). Ingestion writes to the hour in progress almost
 * always, so the version stands still while sessions arrive, where the page's version (0029) moves
 * with every one of them. An update that changes no total counts for nothing; an insert, a change
 * and a delete (an audience's, with its rollups) count.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('closed_hour_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('stripe', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('closed_hour_versions_pk', ['tenant_id', 'stripe'])
    .execute();
  await (engine === 'sqlite' ? rowTriggers(db) : statementTriggers(db));
}
