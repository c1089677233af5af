import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { identifier } from './frozen/identifier.ts';

/** Stripes of a page's version: writers of different audiences of one page rarely share a row. */
const STRIPES = 16;

/** The stripe of an audience: the code of its id's last character (random in every id), modulo STRIPES. */
function stripeOf(engine: Engine, audienceId: string): string {
  const last = `substr(${audienceId}, length(${audienceId}), 1)`;
  return `(${engine === 'sqlite' ? 'unicode' : 'ascii'}(${last}) % ${STRIPES})`;
}

const UPSERT = `INSERT INTO analytics_versions (tenant_id, page_id, stripe, n)`;
const ADD = `ON CONFLICT (tenant_id, page_id, stripe) DO UPDATE SET n = analytics_versions.n + excluded.n`;

/**
 * What the page's analytics read, each table with how one of its rows names its tenant, page and
 * audience (`row` is NEW, OLD or a transition table's alias), and the rows of other tables to
 * join for them. The hourly rollups stand for the running totals, which their triggers move in the
 * same statement (migration 0027): both are cleared with their audience, whose delete counts.
 */
const SOURCES = {
  sessions: (row: string) => ({
    tenant: `${row}.tenant_id`,
    page: `${row}.page_id`,
    audience: `${row}.audience_id`,
    join: '',
  }),
  audiences: (row: string) => ({
    tenant: `${row}.tenant_id`,
    page: `${row}.page_id`,
    audience: `${row}.id`,
    join: '',
  }),
  audience_hourly_stats: (row: string) => ({
    tenant: 'audiences.tenant_id',
    page: 'audiences.page_id',
    audience: 'audiences.id',
    join: `JOIN audiences ON audiences.tenant_id = ${row}.tenant_id AND audiences.id = ${row}.audience_id`,
  }),
} as const;
type Source = keyof typeof SOURCES;

/**
 * SQLite: a row trigger per change, adding one to the stripe of the row's audience on its page (and
 * of the one it had, when a change moves it). SQLite updates a row in place, so a statement that
 * changes many rows costs one upsert each.
 */
async function rowTriggers(db: Kysely<unknown>, table: Source): Promise<void> {
  const bump = (row: 'NEW' | 'OLD') => {
    const { tenant, page, audience, join } = SOURCES[table](row);
    // WHERE: an upsert's SELECT needs one (SQLite's parser). A row whose audience is gone (deleted
    // in the same cascade, and counted there) adds nothing.
    return `${UPSERT} SELECT ${tenant}, ${page}, ${stripeOf('sqlite', audience)}, 1
      FROM (SELECT 1) ${join} WHERE true ${ADD}`;
  };
  const moved = {
    sessions: 'OLD.page_id <> NEW.page_id OR OLD.audience_id <> NEW.audience_id',
    audiences: 'OLD.page_id <> NEW.page_id',
    audience_hourly_stats: 'OLD.audience_id <> NEW.audience_id',
  }[table];
  const triggers = [
    ['added', 'INSERT', '', 'NEW'],
    ['removed', 'DELETE', '', 'OLD'],
    ['changed', 'UPDATE', '', 'NEW'],
    ['moved', 'UPDATE', `WHEN ${moved}`, 'OLD'],
  ] as const;
  for (const [name, event, when, row] of triggers) {
    await sql
      .raw(
        `CREATE TRIGGER ${identifier(`${table}_${name}_in_analytics`)} AFTER ${event} ON ${identifier(table)}
         FOR EACH ROW ${when} BEGIN ${bump(row)}; END`,
      )
      .execute(db);
  }
}

/**
 * PostgreSQL: a statement trigger per change, adding to each stripe the number of the statement's
 * rows in it, from the statement's transition tables. A row trigger would update one stripe's row
 * once per changed row, and PostgreSQL writes a new version of a row at each update, which the next
 * update of the same transaction must walk past: a statement over many rows (a page's purge, a
 * seed) would take time in the square of its rows. Grouped and ordered by stripe, so that two
 * statements lock the stripes they share in the same order.
 */
async function statementTriggers(db: Kysely<unknown>, table: Source): Promise<void> {
  const { tenant, page, audience, join } = SOURCES[table]('changed');
  const tables = { INSERT: ['new_rows'], DELETE: ['old_rows'], UPDATE: ['old_rows', 'new_rows'] } as const;
  for (const [event, transitions] of Object.entries(tables)) {
    const name = identifier(`${table}_${event.toLowerCase()}_in_analytics`);
    const rows = transitions
      .map(
        (
          transition,
        ) => `SELECT ${tenant} AS tenant_id, ${page} AS page_id, ${stripeOf('postgres', audience)} AS stripe
         FROM ${transition} changed ${join}`,
      )
      .join(' UNION ALL ');
    await sql
      .raw(
        `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
           ${UPSERT} SELECT tenant_id, page_id, stripe, count(*) FROM (${rows}) bumped
           GROUP BY tenant_id, page_id, stripe ORDER BY tenant_id, page_id, stripe ${ADD};
           RETURN NULL;
         END $$`,
      )
      .execute(db);
    const referencing = transitions
      .map((transition) => `${transition === 'new_rows' ? 'NEW' : 'OLD'} TABLE AS ${transition}`)
      .join(' ');
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${event} ON ${identifier(table)} REFERENCING ${referencing}
         FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
      )
      .execute(db);
  }
}

/**
 * A version per page of what its audience analytics read: the page's audiences, its sessions and
 * the rollups of its audiences. Triggers add to it, in the transaction of the change, for any
 * insert, change or delete of those; the version of a page is the sum of its stripes, so it moves
 * with every committed change and never comes back to a value it had (the counts only grow). Each
 * process keeps answers of fixed periods with the version they were computed at
 * (resources/sessions/kept-answers.ts) and serves one while the version has not moved.
 *
 * Striped by audience: on PostgreSQL a stripe's row is locked until its writer commits, and the
 * writers of one audience already take turns (on its running totals, migration 0027), so writers
 * of different audiences of a page share a stripe one time in 16.
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
  for (const table of Object.keys(SOURCES) as Source[]) {
    await (engine === 'sqlite' ? rowTriggers(db, table) : statementTriggers(db, table));
  }
}
