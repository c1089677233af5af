import type { AudienceLift } from '@tailor/client';
import type uPlot from 'uplot';
import { Chart, type ChartSeries, COUNT_AXIS, type Palette } from '../../components/chart.tsx';
import { MINIMUM_LIFT } from './lift-verdict.tsx';
import { counted, points, pointsApart, pointsRange } from './numbers.ts';

type Day = AudienceLift['daily'][number];

const secondsOf = (day: Day) => Date.parse(`${day.date}T00:00:00Z`) / 1000;

/** Ticks a whole number of days apart: the series has one value a day, so never an hour between. */
const DAY_STEPS = [1, 2, 3, 7, 14, 28, 56, 91, 182].map((days) => days * 86_400);

/** The axes' common options: UTC days along x, a narrower spacing of dates on a phone. */
function dayAxis(width: number, palette: Palette, library: typeof uPlot) {
  return {
    tzDate: (seconds: number) => library.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    xAxis: { ...palette.axis, space: width < 500 ? 70 : 90, incrs: DAY_STEPS },
  };
}

const NARROWING_SERIES: ChartSeries[] = [
  { label: 'Always-valid 95 % interval, from the visitors up to each day (points)', tone: 'tone-1' },
  { label: 'Zero: no difference, the decision line', tone: 'tone-3', dashed: true },
  { label: `Lifts under ${pointsApart(MINIMUM_LIFT)} either way: too small to wait for`, tone: 'tone-2' },
];

/** The last days in a row whose interval lies wholly on one side of zero: since when it has decided. */
function decidedSince(days: Day[]): Day | undefined {
  const side = (day: Day) =>
    !day.confidenceSequence
      ? 0
      : day.confidenceSequence.lower > 0
        ? 1
        : day.confidenceSequence.upper < 0
          ? -1
          : 0;
  const last = days.at(-1);
  if (!last || side(last) === 0) return undefined;
  let since = last;
  for (const day of [...days].reverse()) {
    if (side(day) !== side(last)) break;
    since = day;
  }
  return since;
}

/** The chart's text alternative: where the interval started, where it is, and since when it decided. */
function narrowingSummary(days: Day[]): string {
  const drawn = days.filter((day) => day.confidenceSequence);
  const first = drawn[0];
  const last = drawn.at(-1);
  if (!first?.confidenceSequence || !last?.confidenceSequence) return '';
  const since = decidedSince(days);
  const decided = since
    ? ` It has been ${(since.confidenceSequence?.lower ?? 0) > 0 ? 'above' : 'below'} zero since ${since.date}.`
    : ' It still includes zero.';
  return `Chart of the always-valid 95 % interval of the lift, day by day: on ${first.date}, the first day it could be computed, it ran from ${pointsRange(first.confidenceSequence)}; on ${last.date} from ${pointsRange(last.confidenceSequence)}.${decided} The table below lists every day.`;
}

/**
 * The always-valid interval of each day, from the period's visitors up to its end, as a band that
 * narrows as visitors come; zero (the decision line) and the smallest lift worth waiting for marked.
 */
export function NarrowingChart({ days }: { days: Day[] }) {
  const summary = narrowingSummary(days);
  if (!summary)
    return (
      <p class="muted">
        Nothing to draw yet: the interval starts on the first day both sides have had a visitor, and some
        visitor has converted.
      </p>
    );
  // From the first day it could be computed (the days before carry nothing), and at least two days.
  const from = Math.min(
    days.findIndex((day) => day.confidenceSequence),
    Math.max(0, days.length - 2),
  );
  const shown = days.slice(from);
  const inPoints = (pick: (sequence: { lower: number; upper: number }) => number) =>
    shown.map((day) => (day.confidenceSequence ? pick(day.confidenceSequence) * 100 : null));
  const data: uPlot.AlignedData = [
    shown.map(secondsOf),
    inPoints((sequence) => sequence.lower),
    inPoints((sequence) => sequence.upper),
  ];
  const minimum = MINIMUM_LIFT * 100;
  return (
    <Chart
      summary={summary}
      series={NARROWING_SERIES}
      data={data}
      options={(width, palette, library) => {
        const { tzDate, xAxis } = dayAxis(width, palette, library);
        const [band = '', zero = '', small = ''] = palette.series;
        return {
          height: width < 500 ? 240 : 300,
          tzDate,
          scales: {
            x: { time: true },
            y: {
              range: (_plot, min, max) => {
                const low = Math.min(min ?? 0, -minimum);
                const high = Math.max(max ?? 0, minimum);
                const pad = (high - low) * 0.05;
                return [low - pad, high + pad];
              },
            },
          },
          axes: [
            xAxis,
            {
              ...palette.axis,
              size: 48,
              values: (_plot, splits) =>
                splits.map((value) => (value === 0 ? '0' : points(value / 100, false))),
            },
          ],
          series: [
            {},
            { label: 'Lower bound', stroke: band, width: 2, points: { show: width / shown.length > 16 } },
            { label: 'Upper bound', stroke: band, width: 2, points: { show: width / shown.length > 16 } },
          ],
          // The stylesheet's tones are #rrggbb: a fourth of their strength fills the band, 40 % the strip.
          bands: [{ series: [2, 1], fill: `${band}40` }],
          hooks: {
            // Over the interval: the strip of lifts too small to wait for, and the zero line in it.
            draw: [
              (plot) => {
                const { ctx, bbox } = plot;
                const top = plot.valToPos(minimum, 'y', true);
                const bottom = plot.valToPos(-minimum, 'y', true);
                const zeroAt = plot.valToPos(0, 'y', true);
                ctx.save();
                ctx.fillStyle = `${small}66`;
                const height = Math.max(6, bottom - top);
                ctx.fillRect(bbox.left, zeroAt - height / 2, bbox.width, height);
                ctx.strokeStyle = zero;
                ctx.lineWidth = 2;
                ctx.setLineDash([6, 4]);
                ctx.beginPath();
                ctx.moveTo(bbox.left, zeroAt);
                ctx.lineTo(bbox.left + bbox.width, zeroAt);
                ctx.stroke();
                ctx.restore();
              },
            ],
          },
        };
      }}
    />
  );
}

const DAILY_SERIES: ChartSeries[] = [
  { label: 'Personalized visitors', tone: 'tone-1' },
  { label: 'Personalized conversions', tone: 'tone-1', dashed: true },
  { label: 'Baseline visitors', tone: 'tone-2' },
  { label: 'Baseline conversions', tone: 'tone-2', dashed: true },
];

/** Each arm's visitors and conversions per UTC day, as lines: for spotting a broken day. */
export function DailyChart({ days }: { days: Day[] }) {
  const data: uPlot.AlignedData = [
    days.map(secondsOf),
    days.map((day) => day.personalized.sessions),
    days.map((day) => day.personalized.conversions),
    days.map((day) => day.baseline.sessions),
    days.map((day) => day.baseline.conversions),
  ];
  const busiest = days.reduce(
    (best, day) =>
      day.personalized.sessions + day.baseline.sessions > best.total
        ? { day, total: day.personalized.sessions + day.baseline.sessions }
        : best,
    { day: days[0], total: -1 },
  );
  return (
    <Chart
      summary={`Line chart of each side's visitors and conversions over ${days.length} days from ${days[0]?.date} to ${days.at(-1)?.date}; the busiest day, ${busiest.day?.date}, had ${counted(busiest.total, 'visitor')}. The table below lists every day.`}
      series={DAILY_SERIES}
      data={data}
      options={(width, palette, library) => {
        const { tzDate, xAxis } = dayAxis(width, palette, library);
        return {
          height: width < 500 ? 200 : 240,
          tzDate,
          scales: {
            x: { time: true },
            y: { range: (_plot, _min, max) => [0, Math.max(1, (max ?? 0) * 1.1)] },
          },
          axes: [xAxis, { ...palette.axis, ...COUNT_AXIS }],
          series: [
            {},
            ...DAILY_SERIES.map((item, index) => ({
              label: item.label,
              stroke: palette.series[index],
              width: 2,
              ...(item.dashed ? { dash: [6, 4] } : {}),
              points: { show: width / days.length > 16 },
            })),
          ],
        };
      }}
    />
  );
}
