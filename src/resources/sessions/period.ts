import { AppError, invalidField } from '../../shared/errors.ts';
import { parseInstant } from '../../shared/time.ts';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
const DEFAULT_PERIOD_MS = 30 * DAY_MS;
const LONGEST_PERIOD_MS = 366 * DAY_MS;

/** A span of time, [start, end) in epoch milliseconds. */
export interface Period {
  start: number;
  end: number;
}

/**
 * The period analytics cover, from `startDate` and `endDate` (RFC 3339 or "+ms"): by default the 30
 * days before now; the start must come before the end, at most 366 days earlier.
 */
export function periodOf(query: { startDate?: string; endDate?: string }, now: number): Period {
  const instant = (value: string | undefined, field: string, fallback: number) => {
    if (value === undefined) return fallback;
    const parsed = parseInstant(value);
    if (parsed === undefined)
      throw invalidField(`/querystring/${field}`, 'must be an RFC 3339 date-time or "+" epoch milliseconds');
    return parsed;
  };
  const end = instant(query.endDate, 'endDate', now);
  const start = instant(query.startDate, 'startDate', end - DEFAULT_PERIOD_MS);
  if (start >= end)
    throw new AppError('validation_failed', 'startDate must be before endDate', [
      { path: '/querystring/startDate', message: 'must be before endDate' },
    ]);
  if (end - start > LONGEST_PERIOD_MS)
    throw new AppError('validation_failed', 'The period may span at most 366 days', [
      { path: '/querystring/startDate', message: 'must be at most 366 days before endDate' },
    ]);
  return { start, end };
}

/**
 * `period` cut at the multiples of `unit` it contains: the `whole` units between the first and the
 * last of them, when there is one, and the rest at either end, each inside one unit.
 */
function splitBy({ start, end }: Period, unit: number): { whole?: Period; edges: Period[] } {
  const first = Math.ceil(start / unit) * unit;
  const last = Math.floor(end / unit) * unit;
  if (first > last) return { edges: [{ start, end }] };
  const edges = [
    { start, end: first },
    { start: last, end },
  ].filter((edge) => edge.start < edge.end);
  return first < last ? { whole: { start: first, end: last }, edges } : { edges };
}

/**
 * A period as its whole hours, when it holds one (the running totals answer them), and the partial
 * hours at either end, each inside one hour (the sessions themselves).
 */
export function splitByHours(period: Period): { whole?: Period; edges: Period[] } {
  return splitBy(period, HOUR_MS);
}

/** A period as the sums that answer it exactly, each span from the coarsest source that can. */
export interface PeriodParts {
  /** Whole UTC days: the daily rollups. At most one span. */
  days: Period[];
  /**
   * Whole hours: the hourly rollups. Those of the partial days at either end of the whole days, or,
   * without a whole day, all of them in one span.
   */
  hours: Period[];
  /** The partial hours at either end: the sessions themselves. Each inside one hour. */
  sessions: Period[];
}

export function splitByRollups(period: Period): PeriodParts {
  const byHour = splitBy(period, HOUR_MS);
  if (!byHour.whole) return { days: [], hours: [], sessions: byHour.edges };
  const byDay = splitBy(byHour.whole, DAY_MS);
  if (!byDay.whole) return { days: [], hours: [byHour.whole], sessions: byHour.edges };
  return { days: [byDay.whole], hours: byDay.edges, sessions: byHour.edges };
}
