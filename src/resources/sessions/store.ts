import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import { columnsOf } from '../../db/compiled.ts';
import { compiled, type TenantDb } from '../../db/tenant-db.ts';
import type { Period } from './period.ts';
import type { AudienceHourlyStatsTable, LiftArm, SessionsTable, SessionsTables } from './tables.ts';

export type SessionRow = Omit<Selectable<SessionsTable>, 'tenant_id'>;
export type Totals = Omit<Selectable<AudienceHourlyStatsTable>, 'tenant_id' | 'audience_id' | 'hour' | 'arm'>;

const SESSION_COLUMNS = [
  'id',
  'page_id',
  'audience_id',
  'page_link_id',
  'arm',
  'started_at',
  'last_event_at',
  'interactions',
  'cta_clicks',
  'form_submits',
  'max_scroll_depth',
  'time_spent_ms',
  'in_lift',
] as const;

export const TOTAL_FIELDS = [
  'sessions',
  'interactions',
  'scroll_depth_sum',
  'time_spent_ms_sum',
  'bounces',
  'conversions',
  'cta_sessions',
  'form_submit_sessions',
] as const;

/** A session bounced: no interaction, no CTA click, no form submission, and under 10 seconds. */
export const BOUNCE_MS = 10_000;

type Db = TenantDb<SessionsTables>;

const CHANGED_COLUMNS = SESSION_COLUMNS.filter((column) => column !== 'id');

// Compiled (db/compiled.ts): the statements of every batch of events.
const byId = compiled((db: Db, p: { id: string }) =>
  db.selectFrom('sessions').select(SESSION_COLUMNS).where('id', '=', p.id),
);

const insertSession = compiled((db: Db, p: SessionRow) =>
  db.insertInto('sessions', columnsOf(p, SESSION_COLUMNS)),
);

const insertSessionUnlessTaken = compiled((db: Db, p: SessionRow) =>
  db
    .insertInto('sessions', columnsOf(p, SESSION_COLUMNS))
    .onConflict((conflict) => conflict.columns(['tenant_id', 'id']).doNothing()),
);

const updateSession = compiled((db: Db, p: SessionRow) =>
  db.updateTable('sessions').set(columnsOf(p, CHANGED_COLUMNS)).where('id', '=', p.id),
);

// Staged rather than added to the hourly row here: see AudienceStatChangesTable.
const addTotals = compiled((db: Db, p: Totals & { audience_id: string; hour: number; arm: LiftArm }) =>
  db.insertInto('audience_stat_changes', {
    audience_id: p.audience_id,
    hour: p.hour,
    arm: p.arm,
    ...columnsOf(p, TOTAL_FIELDS),
  }),
);

const versionOfPage = compiled((db: Db, p: { pageId: string }) =>
  db
    .selectFrom('analytics_versions')
    .select((eb) => eb.fn.sum<number | string>('n').as('n'))
    .where('page_id', '=', p.pageId),
);

/**
 * The version of what the page's audience analytics read (migration 0029): it moves with every
 * committed change to the page's sessions, audiences or their running totals, and never returns to
 * an earlier value. 0 for a page without any.
 */
export async function analyticsVersion(db: Db, pageId: string): Promise<number> {
  return Number((await db.first(versionOfPage, { pageId }))?.n ?? 0);
}

const versionOfClosedHours = compiled((db: Db) =>
  db.selectFrom('closed_hour_versions').select((eb) => eb.fn.sum<number | string>('n').as('n')),
);

/**
 * The version of the tenant's rollups (and so running totals) of the hours that have ended
 * (migration 0036): it moves when a committed change moves one of them, and never returns to an
 * earlier value. 0 for a tenant without any.
 */
export async function closedHoursVersion(db: Db): Promise<number> {
  return Number((await db.first(versionOfClosedHours, {}))?.n ?? 0);
}

export function findSession(db: Db, id: string): Promise<SessionRow | undefined> {
  return db.first(byId, { id });
}

export async function saveSession(db: Db, row: SessionRow, isNew: boolean): Promise<void> {
  await db.run(isNew ? insertSession : updateSession, row);
}

/** Inserts a new session; false, changing nothing, when the tenant has a session of that id already. */
export async function insertNewSession(db: Db, row: SessionRow): Promise<boolean> {
  return (await db.run(insertSessionUnlessTaken, row)) === 1;
}

/**
 * Adds `delta` to the totals of one hour of the audience's sessions that count toward `arm` of its
 * lift (`none`: analytics only): once the transaction commits, on PostgreSQL (see
 * AudienceStatChangesTable).
 */
export async function addToHour(
  db: Db,
  audienceId: string,
  hour: number,
  arm: LiftArm,
  delta: Totals,
): Promise<void> {
  await db.run(addTotals, { ...delta, audience_id: audienceId, hour, arm });
}

export type AudienceTotals = Totals & { audience_id: string };

/** The rollups: each table with the column that holds the start of its rows' span, epoch milliseconds. */
const ROLLUPS = {
  hourly: { table: 'audience_hourly_stats', start: 'hour' },
  daily: { table: 'audience_daily_stats', start: 'day' },
} as const;
export type Rollup = keyof typeof ROLLUPS;

/** The rows of `rollup` whose span lies in `span`, which must begin and end on bounds of its spans. */
function rollupRows(db: TenantDb<SessionsTables>, rollup: Rollup, span: Period) {
  const { table, start } = ROLLUPS[rollup];
  // Both tables have the same columns but the one holding the span's start, named by `start`.
  return db
    .selectFrom(table as 'audience_hourly_stats')
    .where(sql.ref(start), '>=', span.start)
    .where(sql.ref(start), '<', span.end);
}

/**
 * Totals per audience, both arms together, of the whole hours of `span` (which must begin and end on
 * an hour): the running totals before its end less those before its start, for each audience that
 * has any (the others have none). Each side is one lookup of the latest row before the instant, found
 * from the audience's row at hour 0: two index seeks per audience and side, whatever the period.
 */
export async function runningTotals(
  db: TenantDb<SessionsTables>,
  audienceIds: string[],
  span: Period,
): Promise<AudienceTotals[]> {
  const latestBefore =
    (instant: number) => (eb: ExpressionBuilder<SessionsTables, 'audience_running_stats'>) =>
      eb
        .selectFrom('audience_running_stats as previous')
        .select((inner) => inner.fn.max('previous.hour').as('hour'))
        .whereRef('previous.audience_id', '=', 'audience_running_stats.audience_id')
        .where('previous.hour', '<', instant);
  const rows = await db
    .selectFrom('audience_running_stats')
    .leftJoin('audience_running_stats as at_end', (join) =>
      join
        .onRef('at_end.audience_id', '=', 'audience_running_stats.audience_id')
        .on('at_end.hour', '=', latestBefore(span.end)),
    )
    .leftJoin('audience_running_stats as at_start', (join) =>
      join
        .onRef('at_start.audience_id', '=', 'audience_running_stats.audience_id')
        .on('at_start.hour', '=', latestBefore(span.start)),
    )
    .select((eb) => [
      'audience_running_stats.audience_id',
      ...TOTAL_FIELDS.map((field) =>
        eb(
          eb.fn.coalesce(`at_end.${field}`, sql.lit(0)),
          '-',
          eb.fn.coalesce(`at_start.${field}`, sql.lit(0)),
        ).as(field),
      ),
    ])
    .where('audience_running_stats.audience_id', 'in', audienceIds)
    .where('audience_running_stats.hour', '=', 0)
    .execute();
  return rows as AudienceTotals[];
}

/**
 * Totals per audience, every arm together, of the hour that starts at `hour`, from the hourly
 * rollups: of every audience of the tenant with sessions in it (an answer keeps its page's).
 */
export function hourTotals(db: TenantDb<SessionsTables>, hour: number): Promise<AudienceTotals[]> {
  return db
    .selectFrom('audience_hourly_stats')
    .select((eb) => ['audience_id', ...TOTAL_FIELDS.map((field) => eb.fn.sum<number>(field).as(field))])
    .where('hour', '=', hour)
    .groupBy('audience_id')
    .execute();
}

const converted = sql<number>`CASE WHEN cta_clicks > 0 OR form_submits > 0 THEN 1 ELSE 0 END`;

/** Totals per audience of the page computed from its sessions that started in `span`, one range of an index. */
export function sessionTotals(
  db: TenantDb<SessionsTables>,
  pageId: string,
  span: Period,
): Promise<AudienceTotals[]> {
  const bounced = sql<number>`CASE WHEN interactions = 0 AND cta_clicks = 0 AND form_submits = 0 AND time_spent_ms < ${BOUNCE_MS} THEN 1 ELSE 0 END`;
  return db
    .selectFrom('sessions')
    .select((eb) => [
      'audience_id',
      eb.fn.countAll<number>().as('sessions'),
      eb.fn.sum<number>('interactions').as('interactions'),
      eb.fn.sum<number>('max_scroll_depth').as('scroll_depth_sum'),
      eb.fn.sum<number>('time_spent_ms').as('time_spent_ms_sum'),
      eb.fn.sum<number>(bounced).as('bounces'),
      eb.fn.sum<number>(converted).as('conversions'),
      eb.fn.sum<number>(sql<number>`CASE WHEN cta_clicks > 0 THEN 1 ELSE 0 END`).as('cta_sessions'),
      eb.fn.sum<number>(sql<number>`CASE WHEN form_submits > 0 THEN 1 ELSE 0 END`).as('form_submit_sessions'),
    ])
    .where('page_id', '=', pageId)
    .where('started_at', '>=', span.start)
    .where('started_at', '<', span.end)
    .groupBy('audience_id')
    .execute();
}

/**
 * Sessions and conversions of one arm of an audience over some span (a day, or part of one); the
 * sessions outside the lift are under `none`.
 */
export interface ArmCounts {
  arm: LiftArm;
  /** The UTC day: epoch milliseconds divided by a day's. */
  day: number;
  sessions: number;
  conversions: number;
}

/**
 * Sessions and conversions of the audience per arm and UTC day, from the rollups of `span` (whole
 * hours or whole days): a row's day is its start divided by `dayMs` (integer division on both
 * databases).
 */
export async function armDailyTotals(
  db: TenantDb<SessionsTables>,
  rollup: Rollup,
  audienceId: string,
  span: Period,
  dayMs: number,
): Promise<ArmCounts[]> {
  const day = sql<number>`${sql.ref(ROLLUPS[rollup].start)} / ${sql.lit(dayMs)}`;
  const rows = await rollupRows(db, rollup, span)
    .select((eb) => [
      'arm',
      day.as('day'),
      eb.fn.sum<number>('sessions').as('sessions'),
      eb.fn.sum<number>('conversions').as('conversions'),
    ])
    .where('audience_id', '=', audienceId)
    .groupBy(['arm', day])
    .execute();
  return rows.map((row) => ({ ...row, day: Number(row.day) }));
}

/**
 * Sessions and conversions of the audience per arm over the sessions that started in `span` and
 * count toward its lift.
 */
export async function armSessionTotals(
  db: TenantDb<SessionsTables>,
  audienceId: string,
  span: Period,
): Promise<Omit<ArmCounts, 'day'>[]> {
  return db
    .selectFrom('sessions')
    .select((eb) => [
      'arm',
      eb.fn.countAll<number>().as('sessions'),
      eb.fn.sum<number>(converted).as('conversions'),
    ])
    .where('audience_id', '=', audienceId)
    .where('started_at', '>=', span.start)
    .where('started_at', '<', span.end)
    .where('in_lift', '=', 1)
    .groupBy('arm')
    .execute();
}
