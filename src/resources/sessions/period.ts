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
 * The period split where the hourly rollups can answer: `whole` hours [firstHour, lastHour) when
 * there is at least one, and the partial hours at either end, read from the sessions themselves.
 */
export function splitByHours({ start, end }: Period): { whole?: Period; edges: Period[] } {
  const firstHour = Math.ceil(start / HOUR_MS) * HOUR_MS;
  const lastHour = Math.floor(end / HOUR_MS) * HOUR_MS;
  if (firstHour >= lastHour) return { edges: [{ start, end }] };
  const edges = [
    { start, end: firstHour },
    { start: lastHour, end },
  ].filter((edge) => edge.start < edge.end);
  return { whole: { start: firstHour, end: lastHour }, edges };
}
