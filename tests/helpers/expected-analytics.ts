import type { Database } from '../../src/db/connection.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { anyTables } from './any-tables.ts';

/** A session as stored, with what the analytics figures are made of. */
export interface StoredSession {
  audience_id: string;
  arm: Arm;
  started_at: number;
  interactions: number;
  cta_clicks: number;
  form_submits: number;
  max_scroll_depth: number;
  time_spent_ms: number;
}

interface Period {
  start: number;
  end: number;
}

/** Every stored session of the page. */
export async function storedSessions(database: Database, pageId: string): Promise<StoredSession[]> {
  const rows = await anyTables(database)
    .selectFrom('sessions')
    .select([
      'audience_id',
      'arm',
      'started_at',
      'interactions',
      'cta_clicks',
      'form_submits',
      'max_scroll_depth',
      'time_spent_ms',
    ])
    .where('page_id', '=', pageId)
    .execute();
  return rows.map((row) => ({
    ...row,
    started_at: Number(row.started_at),
    time_spent_ms: Number(row.time_spent_ms),
  })) as StoredSession[];
}

export const within =
  ({ start, end }: Period) =>
  (session: StoredSession) =>
    session.started_at >= start && session.started_at < end;

export const converted = (session: StoredSession) => session.cta_clicks > 0 || session.form_submits > 0;

/**
 * An audience's analytics item by the contract's definitions (docs/analytics.md), from those of
 * `stored` that are its sessions and started in the period.
 */
export function itemOf(stored: StoredSession[], audienceId: string, period: Period) {
  const mine = stored.filter((session) => session.audience_id === audienceId && within(period)(session));
  const n = mine.length;
  const count = (test: (session: StoredSession) => boolean) => mine.filter(test).length;
  const sum = (value: (session: StoredSession) => number) => mine.reduce((total, s) => total + value(s), 0);
  const share = (value: number) => (n === 0 ? 0 : value / n);
  const bounces = count(
    (s) => s.interactions === 0 && s.cta_clicks === 0 && s.form_submits === 0 && s.time_spent_ms < 10_000,
  );
  const conversions = count(converted);
  const ctaSessions = count((s) => s.cta_clicks > 0);
  const formSessions = count((s) => s.form_submits > 0);
  return {
    audienceId,
    totalSessions: n,
    avgInteractionsPerSession: share(sum((s) => s.interactions)),
    avgScrollDepthPercentage: share(sum((s) => s.max_scroll_depth)),
    avgTimeSpentSeconds: share(sum((s) => s.time_spent_ms)) / 1000,
    bounceRate: share(bounces),
    conversionRate: share(conversions),
    formSubmitRate: share(formSessions),
    bounceCount: bounces,
    bounceEligibleSessions: n,
    conversionCount: conversions,
    ctaSessions,
    formSubmitCount: formSessions,
  };
}
