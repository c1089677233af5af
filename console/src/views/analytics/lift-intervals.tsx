import type { AudienceLift } from '@tailor/client';
import { points, pointsRange } from './numbers.ts';

interface Interval {
  lower: number;
  upper: number;
}

/** A scale in percentage points across the plot's width: where a lift sits, in percent of it. */
interface Scale {
  at: (lift: number) => number;
  ticks: number[];
}

/** Steps of 1, 2 and 5 points times a power of ten, as fractions of a rate. */
const STEPS = [0.01, 0.02, 0.05].flatMap((step) => [0.01, 0.1, 1, 10].map((power) => step * power));

/**
 * One scale for every interval drawn, zero always on it: from the lowest bound to the highest, with
 * round ticks (at most five, so that they fit a phone) and a little room beyond the outermost.
 */
function scaleOf(intervals: Interval[]): Scale {
  const low = Math.min(0, ...intervals.map((interval) => interval.lower));
  const high = Math.max(0, ...intervals.map((interval) => interval.upper));
  const step =
    STEPS.sort((a, b) => a - b).find((candidate) => (high - low) / candidate <= 4) ??
    (STEPS.at(-1) as number);
  const first = Math.floor(low / step) * step;
  const last = Math.ceil(high / step) * step;
  const ticks: number[] = [];
  for (let tick = first; tick <= last + step / 2; tick += step) ticks.push(Math.round(tick * 1e6) / 1e6);
  const pad = (last - first) * 0.08;
  return { at: (lift) => ((lift - (first - pad)) / (last - first + 2 * pad)) * 100, ticks };
}

interface Row {
  kind: 'sequence' | 'fixed';
  name: string;
  reading: string;
  interval: Interval;
}

/**
 * Both 95 % intervals of the lift on one scale in percentage points, with zero marked: the
 * always-valid one, which the decision comes from, and the fixed one, which is narrower but right only
 * when read once. The figures are written out beside each bar; the bars only show them.
 */
export function IntervalPlot({ lift }: { lift: AudienceLift }) {
  const { confidenceInterval: fixed, confidenceSequence: sequence, absoluteLift: estimate } = lift;
  if (fixed.lower === null || fixed.upper === null || estimate === null || sequence === null) return null;
  const rows: Row[] = [
    {
      kind: 'sequence',
      name: 'Always-valid 95 % interval',
      reading: 'read it any day: the verdict comes from it',
      interval: sequence,
    },
    {
      kind: 'fixed',
      name: 'Fixed 95 % interval',
      reading: 'right only if read once, at an end planned in advance',
      interval: { lower: fixed.lower, upper: fixed.upper },
    },
  ];
  const scale = scaleOf(rows.map((row) => row.interval));
  return (
    <figure class="interval-plot">
      <figcaption>
        Today's lift, <strong>{points(estimate)}</strong>, and its two 95 % intervals on one scale. Right of
        the dashed zero line, personalization converts better; left of it, worse.
      </figcaption>
      {rows.map((row) => (
        <div class={`interval-row ${row.kind}`} key={row.kind}>
          <p class="interval-label">
            <strong>{row.name}</strong>: <span class="lift-range">{pointsRange(row.interval)}</span>{' '}
            <span class="muted">({row.reading})</span>
          </p>
          <div class="interval-track" aria-hidden="true">
            <span class="interval-zero" style={{ left: `${scale.at(0)}%` }} />
            <span
              class="interval-range"
              style={{
                left: `${scale.at(row.interval.lower)}%`,
                width: `${scale.at(row.interval.upper) - scale.at(row.interval.lower)}%`,
              }}
            />
            <span class="interval-estimate" style={{ left: `${scale.at(estimate)}%` }} />
          </div>
        </div>
      ))}
      <div class="interval-axis" aria-hidden="true">
        {scale.ticks.map((tick) => (
          <span key={tick} class={tick === 0 ? 'zero' : undefined} style={{ left: `${scale.at(tick)}%` }}>
            {tick === 0 ? '0' : points(tick, false)}
          </span>
        ))}
      </div>
      <p class="interval-unit muted" aria-hidden="true">
        percentage points of conversion rate
      </p>
    </figure>
  );
}
