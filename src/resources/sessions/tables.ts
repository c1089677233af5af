/** Row types of the session tables: visitors' sessions and their hourly sums per audience and arm. */

/** Which page a session was served: the published version, or the baseline of a holdout. */
export type Arm = 'personalized' | 'baseline';

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
}

/**
 * Sums over the sessions of one audience and arm that started in one hour: analytics add up whole
 * hours from here and only read raw sessions at the edges of the requested period.
 */
export interface AudienceHourlyStatsTable {
  tenant_id: string;
  audience_id: string;
  /** Start of the hour, epoch milliseconds. */
  hour: number;
  arm: Arm;
  sessions: number;
  interactions: number;
  scroll_depth_sum: number;
  time_spent_ms_sum: number;
  bounces: number;
  conversions: number;
  cta_sessions: number;
  form_submit_sessions: number;
}

export type SessionsTables = {
  sessions: SessionsTable;
  audience_hourly_stats: AudienceHourlyStatsTable;
};
