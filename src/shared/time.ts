import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The contract's timestamp form: "+" and Unix epoch milliseconds. */
export function toTimestamp(ms: number): string {
  return `+${ms}`;
}

export function toNullableTimestamp(ms: number | null): string | null {
  return ms === null ? null : toTimestamp(ms);
}

/**
 * ajv-formats' `date-time`, the rule `format: "date-time"` applies to bodies: it checks the calendar
 * (no February 30) and the clock, which Date.parse does not (it reads 2024-02-30 as March 1).
 */
const DATE_TIME = fullFormats['date-time'] as { validate: (value: string) => boolean };

/** Accepts RFC 3339 date-times and the "+ms" form; undefined when it is neither. */
export function parseInstant(value: string): number | undefined {
  if (/^\+[1-9]\d{1,14}$/.test(value)) return Number(value.slice(1));
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value)) return undefined;
  if (!DATE_TIME.validate(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
