import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { createTrigger } from './frozen/trigger-v1.ts';

/** Stripes of a page's version: writers of different audiences of one page rarely share a row. */
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

/** The stripe of an audience: the code of its id's last character (random in every id), modulo STRIPES. */
function stripeOf(engine: Engine, audienceId: string): string {
  const last = `substr(${audienceId}, length(${audienceId}), 1)`;
  return `(${engine === 'sqlite' ? 'unicode' : 'ascii'}(${last}) % ${STRIPES})`;
}

/**
 * Adds one to the version of a page. `select` is the rest of an INSERT ... SELECT naming the
 * tenant, the page and the audience whose change it is: a row it does not find (the audience of a
 * deleted running total, gone in the same cascade, whose own delete counted) adds nothing.
 */
const bump = (engine: Engine, tenant: string, page: string, audience: string, from = '') =>
  `INSERT INTO analytics_versions (tenant_id, page_id, stripe, n)
   SELECT ${tenant}, ${page}, ${stripeOf(engine, audience)}, 1 ${from}
   ON CONFLICT (tenant_id, page_id, stripe) DO UPDATE SET n = analytics_versions.n + 1`;

/** Bumps the version of the page of `row`'s audience (a running total has no page of its own). */
const bumpAudiencePage = (engine: Engine, row: 'NEW' | 'OLD') =>
  bump(
    engine,
    'audiences.tenant_id',
    'audiences.page_id',
    'audiences.id',
    `FROM audiences WHERE audiences.tenant_id = ${row}.tenant_id AND audiences.id = ${row}.audience_id`,
  );

/**
 * A version per page of what its audience analytics read: the page's audiences, their running
 * totals and the page's sessions. Triggers add one, in the transaction of the change, to any
 * insert, change or delete of those; the version of a page is the sum of its stripes, so it moves
 * with every committed change and never comes back to a value it had (the counts only grow). Each
 * process keeps answers of fixed periods with the version they were computed at
 * (resources/sessions/kept-answers.ts) and serves one while the version has not moved.
 *
 * Striped by audience: on PostgreSQL a stripe's row is locked until its writer commits, and the
 * writers of one audience already take turns (on its running totals, migration 0027), so writers
 * of different audiences of a page rarely wait for each other here. A running total's update counts
 * only when a figure changed: 0027's lock on the audience's row at hour 0 changes none.
 *
 * No foreign key to pages: a page's purge deletes its sessions, whose triggers come here after the
 * page is gone. The few rows of a purged page stay, and nothing reads them.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('analytics_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('page_id', 'text', (c) => c.notNull())
    .addColumn('stripe', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_versions_pk', ['tenant_id', 'page_id', 'stripe'])
    .execute();

  const ofRow = (row: 'NEW' | 'OLD') =>
    bump(engine, `${row}.tenant_id`, `${row}.page_id`, `${row}.audience_id`);
  const moved = 'OLD.page_id <> NEW.page_id OR OLD.audience_id <> NEW.audience_id';
  const counted = [
    'page_id',
    'audience_id',
    'started_at',
    'interactions',
    'cta_clicks',
    'form_submits',
    'max_scroll_depth',
    'time_spent_ms',
  ];
  for (const table of ['sessions', 'audiences'] as const) {
    const columns = table === 'sessions' ? counted : ['page_id'];
    // An audience is its own audience: its id stands where a session names its audience.
    const of = (row: 'NEW' | 'OLD') =>
      table === 'sessions' ? ofRow(row) : bump(engine, `${row}.tenant_id`, `${row}.page_id`, `${row}.id`);
    await createTrigger(db, engine, {
      name: `${table}_added_to_analytics`,
      table,
      event: 'INSERT',
      statements: [of('NEW')],
    });
    await createTrigger(db, engine, {
      name: `${table}_removed_from_analytics`,
      table,
      event: 'DELETE',
      statements: [of('OLD')],
    });
    await createTrigger(db, engine, {
      name: `${table}_changed_in_analytics`,
      table,
      event: `UPDATE OF ${columns.join(', ')}`,
      statements: [of('NEW')],
    });
    await createTrigger(db, engine, {
      name: `${table}_moved_in_analytics`,
      table,
      event: `UPDATE OF ${columns.join(', ')}`,
      when: table === 'sessions' ? moved : 'OLD.page_id <> NEW.page_id',
      statements: [of('OLD')],
    });
  }

  const figureChanged = TOTALS.map((column) => `OLD.${column} <> NEW.${column}`).join(' OR ');
  for (const [event, row, when] of [
    ['INSERT', 'NEW', undefined],
    ['DELETE', 'OLD', undefined],
    [`UPDATE OF ${TOTALS.join(', ')}`, 'NEW', figureChanged],
  ] as const) {
    await createTrigger(db, engine, {
      name: `running_stats_${event.split(' ')[0]?.toLowerCase()}_in_analytics`,
      table: 'audience_running_stats',
      event,
      when,
      statements: [bumpAudiencePage(engine, row)],
    });
  }
}
