/** Row types of the session tables: visitors' sessions and their hourly and daily sums per audience and arm. */

import type { Arm } from '../../shared/arm.ts';

export type { Arm } from '../../shared/arm.ts';

export interface SessionsTable {
  /** The visitor's session id (made by the tracking script), unique per tenant. */
  id: string;
  tenant_id: string;
  page_id: string;
  audience_id: string;
  page_link_id: string;
  arm: Arm;
  started_at: number;
  last_event_at: number;
  interactions: number;
  cta_clicks: number;
  form_submits: number;
  /** Deepest scroll reached, 0-100. */
  max_scroll_depth: number;
  /** Time the page was visible, in milliseconds. */
  time_spent_ms: number;
  /**
   * 1 when the session counts toward its audience's lift, 0 when its client address started it
   * beyond its arm's share of the visitors the address may stand for (docs/analytics.md): it then
   * counts in analytics only.
   */
  in_lift: number;
}

/**
 * The arm a rollup row sums sessions of toward lift: the session's arm, or `none` for the sessions
 * that count in analytics only (`in_lift` 0). Analytics sum every arm; the lift reads its two.
 */
export type LiftArm = Arm | 'none';

/** What a rollup sums over the sessions of one audience and arm that started in its span. */
interface SessionSums {
  sessions: number;
  interactions: number;
  scroll_depth_sum: number;
  time_spent_ms_sum: number;
  bounces: number;
  conversions: number;
  cta_sessions: number;
  form_submit_sessions: number;
}

/**
 * The sums of one hour. Ingestion keeps them, in the transaction that records the events; analytics
 * read the whole hours of a period's partial days here, and raw sessions only for its partial hours.
 */
export interface AudienceHourlyStatsTable extends SessionSums {
  tenant_id: string;
  audience_id: string;
  /** Start of the hour, epoch milliseconds. */
  hour: number;
  arm: LiftArm;
}

/**
 * The sums of one UTC day: the sum of its hours, kept by database triggers on every change of an
 * hourly row (migration 0016). Analytics read a period's whole days here.
 */
export interface AudienceDailyStatsTable extends SessionSums {
  tenant_id: string;
  audience_id: string;
  /** Start of the UTC day, epoch milliseconds. */
  day: number;
  arm: LiftArm;
}

/**
 * Running totals of an audience, both arms together (migration 0027): the row at an hour holds the
 * sums of every hour of the audience up to and including it. There is a row at hour 0 and at every
 * hour the audience has sessions in, kept by database triggers on every change of an hourly row.
 * Analytics read a period's whole hours as the difference of two rows.
 */
export interface AudienceRunningStatsTable extends SessionSums {
  tenant_id: string;
  audience_id: string;
  /** Start of the hour, epoch milliseconds; 0 for the row before any session. */
  hour: number;
}

/**
 * A change of one hour of an audience's rollup, staged by a batch of events (migration 0028): the
 * database adds it to its hourly row and drops it, at once on SQLite and at the commit on
 * PostgreSQL, so that the audience's shared rows are locked from the commit to its flush only.
 * Nothing reads it.
 */
export type AudienceStatChangesTable = AudienceHourlyStatsTable;

/**
 * One stripe of the version of a page's analytics (migration 0029): triggers add one to it in the
 * transaction of every change to the page's sessions, audiences or their running totals. A page's
 * version is the sum of its stripes.
 */
export interface AnalyticsVersionsTable {
  tenant_id: string;
  page_id: string;
  stripe: number;
  n: number;
}

/**
 * One stripe of the version of a tenant's closed hours (migration 0036): triggers add one to it when
 * a change moves an hourly rollup of an hour that has ended. A tenant's version is the sum of its
 * stripes.
 */
export interface ClosedHourVersionsTable {
  tenant_id: string;
  stripe: number;
  n: number;
}

export type SessionsTables = {
  sessions: SessionsTable;
  audience_stat_changes: AudienceStatChangesTable;
  audience_hourly_stats: AudienceHourlyStatsTable;
  audience_daily_stats: AudienceDailyStatsTable;
  audience_running_stats: AudienceRunningStatsTable;
  analytics_versions: AnalyticsVersionsTable;
  closed_hour_versions: ClosedHourVersionsTable;
};
