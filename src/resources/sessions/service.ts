import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidField } from '../../shared/errors.ts';
import type { ItemTexts } from './item-texts.ts';
import type { KeptAnswers } from './kept-answers.ts';
import { HOUR_MS, type Period, periodOf, splitByHours } from './period.ts';
import type { AudienceAnalyticsItem, SessionEvent } from './schema.ts';
import {
  type AudienceTotals,
  addToHour,
  analyticsVersion,
  BOUNCE_MS,
  closedHoursVersion,
  findSession,
  hourTotals,
  insertNewSession,
  runningTotals,
  type SessionRow,
  saveSession,
  sessionTotals,
  TOTAL_FIELDS,
  type Totals,
} from './store.ts';
import type { Arm } from './tables.ts';

/** Resolves when the page is one of the tenant's; rejects not found otherwise. */
export type PageCheck = (db: TenantDb, pageId: string) => Promise<unknown>;

/**
 * The ids of every audience of a page, archived ones too, newest first. The pages and audiences
 * resources answer; the server wires them in (src/wiring.ts).
 */
export type PageAudiences = (db: TenantDb, pageId: string) => Promise<string[]>;

/** Which page, audience, link and arm a session belongs to: what the page's token names. */
export interface Visit {
  sessionId: string;
  pageId: string;
  audienceId: string;
  pageLinkId: string;
  arm: Arm;
}

/**
 * Whether a session that a batch starts counts toward its audience's lift, or in analytics only
 * (docs/analytics.md#what-counts-toward-lift): the visitor side's limits answer it. A session
 * already started keeps what it was started with.
 */
export type LiftStanding = { inLift: boolean };

/** The standing of a session that nothing limits: every session counts toward lift. */
export const IN_LIFT: LiftStanding = { inLift: true };

/** What a session counts: the tracker's events, and a form submitted during it. */
export type Recorded = SessionEvent | { type: 'form_submit' };

/** One session's share of its hour's totals. */
function contribution(session: SessionRow): Totals {
  const bounced =
    session.interactions === 0 &&
    session.cta_clicks === 0 &&
    session.form_submits === 0 &&
    session.time_spent_ms < BOUNCE_MS;
  return {
    sessions: 1,
    interactions: session.interactions,
    scroll_depth_sum: session.max_scroll_depth,
    time_spent_ms_sum: session.time_spent_ms,
    bounces: bounced ? 1 : 0,
    conversions: session.cta_clicks > 0 || session.form_submits > 0 ? 1 : 0,
    cta_sessions: session.cta_clicks > 0 ? 1 : 0,
    form_submit_sessions: session.form_submits > 0 ? 1 : 0,
  };
}

const NOTHING: Totals = Object.fromEntries(TOTAL_FIELDS.map((field) => [field, 0])) as Totals;

function minus(after: Totals, before: Totals): Totals {
  const change = { ...NOTHING };
  for (const field of TOTAL_FIELDS) change[field] = after[field] - before[field];
  return change;
}

/**
 * What one visit can produce: a tab visible for 4 hours, with an interaction (the tracker reports
 * at most one a second) in most of those seconds. A batch that would take a session beyond is
 * recorded up to these totals, so that no session weighs more than a visit in analytics.
 */
const MAX_SESSION_TIME_MS = 4 * 60 * 60 * 1000;
const MAX_SESSION_INTERACTIONS = 10_000;

/** Adds `event` to `session`, a copy this batch owns (a batch of 50 events makes one copy, not 50). */
function apply(session: SessionRow, event: Recorded): void {
  switch (event.type) {
    case 'interaction':
      session.interactions = Math.min(session.interactions + 1, MAX_SESSION_INTERACTIONS);
      return;
    case 'cta_click':
      session.cta_clicks += 1;
      return;
    case 'form_submit':
      session.form_submits += 1;
      return;
    case 'scroll':
      session.max_scroll_depth = Math.max(session.max_scroll_depth, event.depth);
      return;
    case 'time':
      session.time_spent_ms = Math.min(session.time_spent_ms + event.ms, MAX_SESSION_TIME_MS);
      return;
    case 'session_start':
      return;
  }
}

function newSession(visit: Visit, now: number, { inLift }: LiftStanding): SessionRow {
  return {
    id: visit.sessionId,
    page_id: visit.pageId,
    audience_id: visit.audienceId,
    page_link_id: visit.pageLinkId,
    arm: visit.arm,
    started_at: now,
    last_event_at: now,
    interactions: 0,
    cta_clicks: 0,
    form_submits: 0,
    max_scroll_depth: 0,
    time_spent_ms: 0,
    in_lift: inLift ? 1 : 0,
  };
}

/** Whether a session with this id has been started (on any page of the tenant). */
export async function sessionExists(db: TenantDb, sessionId: string): Promise<boolean> {
  return (await findSession(db, sessionId)) !== undefined;
}

/** `before` with the batch's events added, its last event now: a copy, `before` is left as it was. */
function played(before: SessionRow, events: Recorded[], now: number): SessionRow {
  const after = { ...before, last_event_at: now };
  for (const event of events) apply(after, event);
  return after;
}

/**
 * Moves the session's hour of the audience's rollup by the change in the session's share: under
 * its arm when it counts toward lift, under `none` when it counts in analytics only.
 */
async function addChange(
  tx: TenantDb,
  audienceId: string,
  before: SessionRow | undefined,
  after: SessionRow,
): Promise<void> {
  const hour = Math.floor(after.started_at / HOUR_MS) * HOUR_MS;
  const change = minus(contribution(after), before ? contribution(before) : NOTHING);
  await addToHour(tx, audienceId, hour, after.in_lift === 1 ? after.arm : 'none', change);
}

/**
 * Records a batch of a session's events, and moves the session's hour of the audience's rollup by
 * the change in the session's share (a trigger moves its day by as much): analytics read the
 * rollups. Call it in a transaction. A session starts when its first batch arrives (server time), in
 * the arm of the page that sent it; a session id already used by another audience's page starts
 * nothing new. Two batches of a new session may race to create it: the loser's insert fails on the
 * session's key, and a retry finds the session made. Saving the session moves its audience's
 * person's latest activity (migration 0032's trigger).
 *
 * The batch that starts a session (the tracker sends `session_start` in its first) nearly always
 * finds none: its session is inserted at once, unless one of that id is there, and read only then.
 * A session it starts counts toward lift as `standing` says.
 */
export async function recordSessionEvents(
  tx: TenantDb,
  visit: Visit,
  events: Recorded[],
  now: number,
  standing: LiftStanding,
): Promise<void> {
  if (events.some((event) => event.type === 'session_start')) {
    const started = played(newSession(visit, now, standing), events, now);
    if (await insertNewSession(tx, started)) return addChange(tx, visit.audienceId, undefined, started);
  }
  const existing = await findSession(tx, visit.sessionId);
  if (existing && existing.audience_id !== visit.audienceId) {
    throw invalidField('/body/sessionId', 'belongs to another page; start a new session');
  }
  const after = played(existing ?? newSession(visit, now, standing), events, now);
  await saveSession(tx, after, !existing);
  await addChange(tx, visit.audienceId, existing, after);
}

/**
 * `into` with each row added to (`sign` -1: taken from) its audience's totals. A total it held is
 * not changed but replaced, so that totals kept elsewhere (the closed hours' sums) can be its
 * starting point, shared.
 */
function add(into: Map<string, Totals>, rows: AudienceTotals[], sign = 1): Map<string, Totals> {
  for (const row of rows) {
    const totals = { ...(into.get(row.audience_id) ?? NOTHING) };
    for (const field of TOTAL_FIELDS) totals[field] += sign * Number(row[field] ?? 0);
    into.set(row.audience_id, totals);
  }
  return into;
}

/** Each audience's totals among `rows`. */
const totalsOf = (rows: AudienceTotals[]) => add(new Map(), rows);

/**
 * An audience's item: its fields in the schema's order and every figure a finite number, so that
 * JSON.stringify writes byte for byte what the response schema's serializer would (ItemTexts).
 */
function present(audienceId: string, totals: Totals): AudienceAnalyticsItem {
  const sessions = totals.sessions;
  const share = (count: number) => (sessions === 0 ? 0 : count / sessions);
  return {
    audienceId,
    totalSessions: sessions,
    avgInteractionsPerSession: share(totals.interactions),
    avgScrollDepthPercentage: share(totals.scroll_depth_sum),
    avgTimeSpentSeconds: share(totals.time_spent_ms_sum) / 1000,
    bounceRate: share(totals.bounces),
    conversionRate: share(totals.conversions),
    formSubmitRate: share(totals.form_submit_sessions),
    bounceCount: totals.bounces,
    bounceEligibleSessions: sessions,
    conversionCount: totals.conversions,
    ctaSessions: totals.cta_sessions,
    formSubmitCount: totals.form_submit_sessions,
  };
}

/** The sums of the whole hours of a period, for each of the audiences that has any; not to be changed. */
type WholeHours = (audienceIds: string[], whole: Period) => Promise<ReadonlyMap<string, Totals>>;

/** The sums of a span inside one hour: rows to add, and rows to take away. */
type PartialHour = (span: Period) => Promise<[plus: AudienceTotals[], minus?: AudienceTotals[]]>;

/** How a period's parts are summed: its whole hours, and each partial hour at its ends. */
interface Sources {
  wholeHours: WholeHours;
  partialHour: PartialHour;
}

/** The sums of the whole hours from the running totals. */
const fromRunningTotals =
  (db: TenantDb): WholeHours =>
  async (audienceIds, whole) =>
    totalsOf(await runningTotals(db, audienceIds, whole));

/** The sums of a partial hour from the sessions of the page that started in it. */
const fromSessions =
  (db: TenantDb, pageId: string): PartialHour =>
  async (span) => [await sessionTotals(db, pageId, span)];

/**
 * The sums of a partial hour, where the one in progress up to `now` comes from its hourly rollups
 * less the sessions that start later in it (a client's clock ahead): its sessions keep arriving, and
 * reading them costs in proportion to their number, the rollups to the audiences with any.
 */
const withHourInProgress =
  (db: TenantDb, pageId: string, now: number): PartialHour =>
  async (span) => {
    const inProgress = now - (now % HOUR_MS);
    if (span.start !== inProgress || span.end !== now) return fromSessions(db, pageId)(span);
    return Promise.all([
      hourTotals(db, inProgress),
      sessionTotals(db, pageId, { start: now, end: inProgress + HOUR_MS }),
    ]);
  };

/** The answer computed from `sources`; see audienceAnalytics. */
async function computeAnalytics(
  db: TenantDb,
  pageId: string,
  period: Period,
  { audiences, itemTexts }: AnalyticsNeeds,
  { wholeHours, partialHour }: Sources,
): Promise<Buffer> {
  const audienceIds = await audiences(db, pageId);
  const { whole, edges } = splitByHours(period);
  const [wholeSums, edgeSums] = await Promise.all([
    whole ? wholeHours(audienceIds, whole) : new Map<string, Totals>(),
    Promise.all(edges.map(partialHour)),
  ]);
  const totals = new Map(wholeSums);
  for (const [plus, minus = []] of edgeSums) add(add(totals, plus), minus, -1);
  return itemTexts.answer(
    `${db.tenantId} ${pageId}`,
    audienceIds.map((id) => [id, totals.get(id) ?? NOTHING]),
    present,
  );
}

/**
 * How long after an hour ends a change to it may still commit without moving the closed hours'
 * version: its trigger ran in the hour (on the database's clock), so this covers the rest of its
 * transaction and the difference between this node's clock and the database's.
 */
export const CLOSING_MS = 60_000;

/** About what one audience's sums hold in memory: an object of eight fields, its id, its Map entry. */
const SUMS_BYTES = 250;

/** The size the closed hours' kept sums count in their bound. */
export const closedHoursSize = (sums: ReadonlyMap<string, Totals>) => sums.size * SUMS_BYTES;

/**
 * The sums of the whole hours of a period that ends now, kept with the tenant's closed hours'
 * version (migration 0036) read before they are computed: the whole hours end where the hour in
 * progress starts, and arriving sessions write to that one, so the kept sums stand while they
 * arrive. In the first CLOSING_MS of an hour they are computed every time, and the version is not
 * read. An audience new since
 * they were kept has no session in them (it would have moved the version), so the sums hold for it.
 */
function closedWholeHours(
  db: TenantDb,
  pageId: string,
  closedHours: KeptAnswers<ReadonlyMap<string, Totals>>,
  now: number,
): WholeHours {
  const compute = fromRunningTotals(db);
  return async (audienceIds, whole) => {
    if (now < whole.end + CLOSING_MS) return compute(audienceIds, whole);
    const version = await closedHoursVersion(db);
    return closedHours.answer(`${db.tenantId} ${pageId} ${whole.start} ${whole.end}`, version, () =>
      compute(audienceIds, whole),
    );
  };
}

/** What the analytics of a page draw on from the other resources (src/wiring.ts answers). */
export interface AnalyticsNeeds {
  page: PageCheck;
  audiences: PageAudiences;
  /** The answers of fixed periods kept in this process. */
  kept: KeptAnswers<Buffer>;
  /** The sums of the closed hours of periods that end now, kept in this process. */
  closedHours: KeptAnswers<ReadonlyMap<string, Totals>>;
  /** The items' JSON as last written, per page. */
  itemTexts: ItemTexts;
}

/**
 * Session metrics of every audience of the page (archived ones too) over sessions that started in
 * [startDate, endDate), as the JSON of the response. The whole hours come from the running totals
 * (two rows per audience, however long the period), only the partial hours at either end from the
 * sessions of the page: the cost grows with the audiences, not with the days or the sessions.
 *
 * A period with a fixed end is a function of the data alone: its answer is kept, with the version
 * of the page's analytics read before computing it, and served again while that version has not
 * moved. A period that ends now moves with the clock: its whole hours are kept (closedWholeHours),
 * its first partial hour is read from the sessions and the hour in progress from its rollups
 * (withHourInProgress), every time.
 */
export async function audienceAnalytics(
  db: TenantDb,
  pageId: string,
  query: { startDate?: string; endDate?: string },
  needs: AnalyticsNeeds,
  now = Date.now(),
): Promise<Buffer> {
  const period = periodOf(query, now);
  await needs.page(db, pageId);
  if (query.endDate === undefined) {
    const wholeHours = closedWholeHours(db, pageId, needs.closedHours, now);
    const partialHour = withHourInProgress(db, pageId, now);
    return computeAnalytics(db, pageId, period, needs, { wholeHours, partialHour });
  }
  const version = await analyticsVersion(db, pageId);
  return needs.kept.answer(`${db.tenantId} ${pageId} ${period.start} ${period.end}`, version, () =>
    computeAnalytics(db, pageId, period, needs, {
      wholeHours: fromRunningTotals(db),
      partialHour: fromSessions(db, pageId),
    }),
  );
}
