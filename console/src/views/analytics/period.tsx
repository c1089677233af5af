import { useState } from 'preact/hooks';
import type { Failure } from '../../api.ts';
import { type Choice, Field, Select } from '../../components/forms.tsx';
import { atFormFields } from '../../form-fields.ts';

/**
 * The period an analytics view covers. A preset ends now and is measured back from the moment it is
 * read; a custom period runs from the start of its first day to the end of its last, in the reader's
 * time zone. It is kept in the address (`?period=7d`, `?from=2026-01-01&to=2026-01-31`), so a view
 * can be reloaded, shared, and opened from another with the same period.
 */
export type Period = { preset: Preset } | { from: string; to: string };

const PRESETS = {
  '24h': { label: 'Last 24 hours', ms: 24 * 3_600_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000 },
  '90d': { label: 'Last 90 days', ms: 90 * 86_400_000 },
} as const;
type Preset = keyof typeof PRESETS;

const DEFAULT_PERIOD: Period = { preset: '30d' };
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isPreset(value: string | null): value is Preset {
  return value !== null && Object.hasOwn(PRESETS, value);
}

const PERIOD_CHOICES: Choice<Preset | 'custom'>[] = [
  ...Object.entries(PRESETS).flatMap(([value, { label }]) => (isPreset(value) ? [{ value, label }] : [])),
  { value: 'custom', label: 'Custom' },
];

export function periodFromSearch(search: string): Period {
  const query = new URLSearchParams(search);
  const preset = query.get('period');
  if (isPreset(preset)) return { preset };
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  return DAY.test(from) && DAY.test(to) ? { from, to } : DEFAULT_PERIOD;
}

/** The address query that names `period`, `?` included. */
export function searchOf(period: Period): string {
  const query = 'preset' in period ? { period: period.preset } : period;
  return `?${new URLSearchParams(query)}`;
}

/** The API's `startDate` and `endDate` for `period`, as of now. */
export function periodQuery(period: Period): { startDate: string; endDate?: string } {
  if ('preset' in period)
    return { startDate: new Date(Date.now() - PRESETS[period.preset].ms).toISOString() };
  const endDay = localMidnight(period.to);
  endDay.setDate(endDay.getDate() + 1);
  return { startDate: localMidnight(period.from).toISOString(), endDate: endDay.toISOString() };
}

function localMidnight(day: string): Date {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  return new Date(year, month - 1, date);
}

/** `period` in words: "last 7 days", "1 Jan 2026 to 31 Jan 2026". */
export function describePeriod(period: Period): string {
  if ('preset' in period) return PRESETS[period.preset].label.toLowerCase();
  const day = (value: string) => localMidnight(value).toLocaleDateString(undefined, { dateStyle: 'medium' });
  return `${day(period.from)} to ${day(period.to)}`;
}

/** The period of the current address, and a way to choose another that keeps the address in step. */
export function usePeriod(): [Period, (period: Period) => void] {
  const [period, setPeriod] = useState(() => periodFromSearch(location.search));
  const choose = (next: Period) => {
    history.replaceState(null, '', `${location.pathname}${searchOf(next)}`);
    setPeriod(next);
  };
  return [period, choose];
}

function isoDay(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

interface PeriodPickerProps {
  period: Period;
  onPeriod: (period: Period) => void;
  /** The last answer's problem: a custom period the API refused names its field. */
  failure: Failure | null;
}

/** A preset period, or a custom one from a first to a last day (a search, not a form: it writes nothing). */
export function PeriodPicker({ period, onPeriod, failure }: PeriodPickerProps) {
  const today = isoDay(new Date());
  const [custom, setCustom] = useState(
    'preset' in period ? { from: isoDay(new Date(Date.now() - PRESETS['30d'].ms)), to: today } : period,
  );
  const [choosingCustom, setChoosingCustom] = useState(!('preset' in period));
  const formFailure = atFormFields(failure, {
    '/querystring/startDate': 'from',
    '/querystring/endDate': 'to',
  });
  return (
    <search class="search" aria-label="Period">
      <Field label="Period" name="period">
        {(control) => (
          <Select
            {...control}
            value={choosingCustom ? 'custom' : 'preset' in period ? period.preset : 'custom'}
            choices={PERIOD_CHOICES}
            onValue={(value) => {
              setChoosingCustom(value === 'custom');
              if (value !== 'custom') onPeriod({ preset: value });
            }}
          />
        )}
      </Field>
      {choosingCustom && (
        <>
          <Field label="From" name="from" failure={formFailure}>
            {(control) => (
              <input
                {...control}
                type="date"
                required
                max={custom.to}
                value={custom.from}
                onInput={(event) => setCustom({ ...custom, from: event.currentTarget.value })}
              />
            )}
          </Field>
          <Field label="To (included)" name="to" failure={formFailure}>
            {(control) => (
              <input
                {...control}
                type="date"
                required
                min={custom.from}
                value={custom.to}
                onInput={(event) => setCustom({ ...custom, to: event.currentTarget.value })}
              />
            )}
          </Field>
          <button type="button" class="primary" onClick={() => onPeriod(custom)}>
            Show
          </button>
        </>
      )}
    </search>
  );
}
