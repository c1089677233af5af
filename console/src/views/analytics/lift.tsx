import type { AudienceLift } from '@tailor/client';
import type uPlot from 'uplot';
import { unwrap } from '../../api.ts';
import { Chart, type ChartSeries, COUNT_AXIS } from '../../components/chart.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { Table } from '../../components/table.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { chance, change, count, counted, percent, points } from './numbers.ts';
import { describePeriod, type Period, PeriodPicker, periodQuery, searchOf, usePeriod } from './period.tsx';

/** What lift needs before its figures mean much (docs/analytics.md, `enoughData`). */
const ENOUGH = { sessions: 100, conversions: 10 };

/**
 * The smallest lift worth waiting for, 2 percentage points: asked of the API as `minimumLift`, so
 * that the wait it answers and the lift the view names are the same.
 */
const MINIMUM_LIFT = 0.02;

interface Ids {
  pageId: string;
  audienceId: string;
}

type Arm = AudienceLift['personalized'];

/** Does personalization pay for this audience? Both arms, the lift with its interval, and the days. */
export function LiftView({ pageId, audienceId }: Ids) {
  const { client } = useSession();
  const [period, setPeriod] = usePeriod();
  const path = { page_id: pageId, audience_id: audienceId };
  const audience = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}/audiences/{audience_id}', { params: { path } })),
    [audienceId],
  );
  const page = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } })),
    [pageId],
  );
  const lift = useLoad(
    () =>
      unwrap(
        client.GET('/v0/pages/{page_id}/analytics/audiences/{audience_id}/lift', {
          params: { path, query: { ...periodQuery(period), minimumLift: MINIMUM_LIFT } },
        }),
      ),
    [audienceId, searchOf(period)],
  );
  const audienceHref = `/pages/${pageId}/audiences/${audienceId}`;
  return (
    <>
      <ViewHead
        title={audience.data ? `Lift of ${audience.data.effectiveName}` : 'Lift'}
        trail={
          <>
            <Link href="/pages">Pages</Link> ›{' '}
            <Link href={`/pages/${pageId}`}>{page.data?.name ?? 'Page'}</Link> ›{' '}
            <Link href={`/pages/${pageId}/analytics${searchOf(period)}`}>Analytics</Link> ›{' '}
            <Link href={audienceHref}>{audience.data?.effectiveName ?? 'Audience'}</Link>
          </>
        }
      />
      <PeriodPicker period={period} onPeriod={setPeriod} failure={lift.failure} />
      <ProblemMessage failure={audience.failure ?? page.failure ?? lift.failure} />
      <div aria-busy={lift.loading} aria-live="polite">
        {lift.loading && !lift.data && <p class="muted">Loading…</p>}
        {lift.data && <LiftReport lift={lift.data} period={period} audienceHref={audienceHref} />}
      </div>
    </>
  );
}

function LiftReport({
  lift,
  period,
  audienceHref,
}: {
  lift: AudienceLift;
  period: Period;
  audienceHref: string;
}) {
  const noHoldout = lift.holdoutPercent === 0 && lift.baseline.sessions === 0;
  return (
    <>
      {!noHoldout && <Decision lift={lift} />}
      {noHoldout && (
        <div class="notice warn">
          <p>
            <strong>This audience has no holdout.</strong> Every visitor sees the personalized page, so there
            is no baseline to compare with. Set a holdout on <Link href={audienceHref}>the audience</Link> (10
            to 20 % is usual) and come back once visitors have come.
          </p>
        </div>
      )}
      {lift.srm.mismatch && (
        <div class="notice warn">
          <p>
            <strong>The split is not what the holdout asks for</strong> (sample-ratio mismatch, p ={' '}
            {lift.srm.pValue?.toPrecision(2)}): visitors were lost or moved in one arm, or the holdout changed
            during the period. Do not trust the lift below.
          </p>
        </div>
      )}
      {!noHoldout && !lift.enoughData && <NotEnoughData lift={lift} />}
      <section aria-labelledby="arms-heading">
        <h2 id="arms-heading">Both arms, {describePeriod(period)}</h2>
        <Table
          caption="Sessions and conversions of each arm"
          rowKey={(row) => row.name}
          items={[
            { name: 'Personalized', arm: lift.personalized, share: 100 - lift.holdoutPercent },
            { name: 'Baseline (holdout)', arm: lift.baseline, share: lift.holdoutPercent },
          ]}
          columns={[
            { label: 'Arm', cell: (row) => `${row.name} · ${row.share} % of visitors` },
            { label: 'Sessions', cell: (row) => count(row.arm.sessions) },
            { label: 'Conversions', cell: (row) => count(row.arm.conversions) },
            { label: 'Conversion rate', cell: (row) => percent(row.arm.conversionRate) },
          ]}
        />
      </section>
      <section aria-labelledby="lift-heading">
        <h2 id="lift-heading">Lift</h2>
        <p class="muted">
          The personalized arm's conversion rate minus the baseline's, in percentage points, with two 95 %
          intervals around it.
        </p>
        <div class="card">
          <dl class="facts totals">
            <div>
              <dt>Absolute lift</dt>
              <dd class="figure">{points(lift.absoluteLift)}</dd>
            </div>
            <div>
              <dt>Relative lift</dt>
              <dd class="figure">{change(lift.relativeLift)}</dd>
            </div>
            <div>
              <dt>Always-valid interval</dt>
              <dd class="figure">{range(lift.confidenceSequence)}</dd>
            </div>
            <div>
              <dt>Fixed 95 % interval</dt>
              <dd class="figure">{range(lift.confidenceInterval)}</dd>
            </div>
            <div>
              <dt>Chance to beat the baseline</dt>
              <dd class="figure">{chance(lift.chanceToBeatBaseline)}</dd>
            </div>
          </dl>
          <IntervalBars lift={lift} />
        </div>
        <details class="why-two">
          <summary>Why two intervals?</summary>
          <p>
            The fixed interval is right 95 % of the time only if it is read once, at an end planned in
            advance. Read every day, it will sooner or later exclude zero by chance: in a simulation of
            experiments with no true difference, checked daily for 60 days, it named a winner in about a third
            of them. The always-valid interval is wider, so that it stays right 95 % of the time however often
            it is read: the decision above comes from it, and may be acted on the day it appears.
          </p>
        </details>
      </section>
      <section aria-labelledby="daily-heading">
        <h2 id="daily-heading">Day by day (UTC)</h2>
        <DailyChart lift={lift} />
        <details>
          <summary>The days as a table</summary>
          <Table
            caption="Sessions and conversions of each arm per day"
            rowKey={(day) => day.date}
            items={[...lift.daily].reverse()}
            columns={[
              { label: 'Day', cell: (day) => day.date },
              {
                label: 'Personalized',
                cell: (day) =>
                  `${count(day.personalized.sessions)} sessions, ${count(day.personalized.conversions)} conversions`,
              },
              {
                label: 'Baseline',
                cell: (day) =>
                  `${count(day.baseline.sessions)} sessions, ${count(day.baseline.conversions)} conversions`,
              },
            ]}
          />
        </details>
      </section>
    </>
  );
}

/** Says plainly that the figures are not to be read yet, and what is missing. */
function NotEnoughData({ lift }: { lift: AudienceLift }) {
  const missing = (name: string, arm: Arm) => {
    const needs = [
      arm.sessions < ENOUGH.sessions && `${count(ENOUGH.sessions - arm.sessions)} more sessions`,
      arm.conversions < ENOUGH.conversions &&
        `${count(ENOUGH.conversions - arm.conversions)} more conversions`,
    ].filter(Boolean);
    return needs.length > 0 ? `the ${name} arm needs ${needs.join(' and ')}` : null;
  };
  const needs = [missing('personalized', lift.personalized), missing('baseline', lift.baseline)].filter(
    Boolean,
  );
  return (
    <div class="notice warn">
      <p>
        <strong>Not enough data yet.</strong> Each arm needs at least {ENOUGH.sessions} sessions and{' '}
        {ENOUGH.conversions} conversions before a difference means much: {needs.join('; ')}. Until then the
        figures below are mostly noise.
      </p>
    </div>
  );
}

type Bounds = AudienceLift['confidenceInterval'];

/** An interval as "−1.2 to +3.4 pts"; a dash while it cannot be computed. */
function range({ lower, upper }: Bounds): string {
  return lower === null || upper === null ? '—' : `${points(lower, false)} to ${points(upper)}`;
}

/** The decision, rounded for reading: "about 12,000 more visitors". */
function roughly(sessions: number): string {
  const rounded = Number(sessions.toPrecision(2));
  return counted(Math.max(rounded, 1), 'more visitor');
}

const DECISIONS: Record<AudienceLift['decision'], { title: string; tone: string }> = {
  personalized_wins: { title: 'Personalization wins', tone: 'win' },
  baseline_wins: { title: 'Baseline wins', tone: 'loss' },
  keep_running: { title: 'Keep it running', tone: 'wait' },
};

/** What to do, in plain words, from the always-valid interval: it may be read every day. */
function Decision({ lift }: { lift: AudienceLift }) {
  const { title, tone } = DECISIONS[lift.decision];
  const wait = lift.sessionsToDecision;
  const waitedFor = Math.max(Math.abs(lift.absoluteLift ?? 0), MINIMUM_LIFT);
  const heading =
    lift.decision === 'keep_running' && wait !== null && wait > 0
      ? `${title}: about ${roughly(wait)}`
      : title;
  let explanation: string;
  if (lift.decision === 'personalized_wins')
    explanation = `Visitors who see the personalized page convert better, by ${range(lift.confidenceSequence)}. This interval stays valid however often you look, so you can act on it now.`;
  else if (lift.decision === 'baseline_wins')
    explanation = `Visitors who see the page without personalization convert better: personalization's lift is ${range(lift.confidenceSequence)}, all of it below zero. Consider reworking this audience's version.`;
  else if (wait === null)
    explanation =
      'There is not enough yet to say how long: both arms need visitors, and at least one of them a conversion. Looking every day is fine.';
  else if (wait === 0)
    explanation = `A lift of ${points(MINIMUM_LIFT)} would have shown by now, so any difference is smaller than that. Keep it running to tell a smaller one, or stop if that is too small to matter.`;
  else
    explanation = `At today's rates, that is about how many more sessions, in both arms together, before a lift of ${points(waitedFor)} would show. Looking every day in the meantime is fine.`;
  return (
    <section class={`decision ${tone}`} aria-labelledby="decision-heading">
      <h2 id="decision-heading">{heading}</h2>
      <p>{explanation}</p>
    </section>
  );
}

/** Where a value sits on the bars' shared scale, in percent of their width. */
function scaleOf(values: number[]): (value: number) => number {
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const pad = (high - low) * 0.1 || 0.01;
  return (value) => ((value - (low - pad)) / (high - low + 2 * pad)) * 100;
}

/** Both intervals around the estimate on one scale, against the zero line (no difference). */
function IntervalBars({ lift }: { lift: AudienceLift }) {
  const fixed = lift.confidenceInterval;
  const sequence = lift.confidenceSequence;
  const estimate = lift.absoluteLift;
  if (fixed.lower === null || fixed.upper === null || estimate === null)
    return <p class="muted">The intervals need sessions in both arms.</p>;
  const drawn = [fixed.lower, fixed.upper, estimate];
  if (sequence.lower !== null && sequence.upper !== null) drawn.push(sequence.lower, sequence.upper);
  const at = scaleOf(drawn);
  const reading =
    lift.decision === 'personalized_wins'
      ? `The whole always-valid interval is above zero: personalization lifts conversion by at least ${points(sequence.lower)}.`
      : lift.decision === 'baseline_wins'
        ? 'The whole always-valid interval is below zero: the baseline converts better.'
        : `The always-valid interval spans zero: the data cannot tell yet whether personalization converts better.${
            fixed.lower > 0 || fixed.upper < 0
              ? ' The fixed interval alone excludes zero, but read day after day it does so by chance far too often to act on.'
              : ''
          }`;
  return (
    <figure class="interval">
      {sequence.lower !== null && sequence.upper !== null ? (
        <IntervalTrack
          label="Always-valid 95 % (read it any day)"
          kind="sequence"
          name={`Estimate ${points(estimate)}, always-valid 95 % sequence from ${points(sequence.lower)} to ${points(sequence.upper)}, against zero.`}
          lower={sequence.lower}
          upper={sequence.upper}
          estimate={estimate}
          at={at}
        />
      ) : (
        <p class="muted">The always-valid interval needs a conversion in at least one arm.</p>
      )}
      <IntervalTrack
        label="Fixed 95 % (read it once, at a planned end)"
        kind="fixed"
        name={`Estimate ${points(estimate)}, 95 % interval from ${points(fixed.lower)} to ${points(fixed.upper)}, against zero.`}
        lower={fixed.lower}
        upper={fixed.upper}
        estimate={estimate}
        at={at}
      />
      <figcaption>{reading}</figcaption>
    </figure>
  );
}

/** One interval as a bar with its bounds labelled under it. */
function IntervalTrack({
  label,
  kind,
  name,
  lower,
  upper,
  estimate,
  at,
}: {
  label: string;
  kind: 'sequence' | 'fixed';
  name: string;
  lower: number;
  upper: number;
  estimate: number;
  at: (value: number) => number;
}) {
  return (
    <div class={`interval-row ${kind}`}>
      <p class="interval-label">{label}</p>
      <div class="interval-track" role="img" aria-label={name}>
        <span class="interval-zero" style={{ left: `${at(0)}%` }} />
        <span class="interval-range" style={{ left: `${at(lower)}%`, width: `${at(upper) - at(lower)}%` }} />
        <span class="interval-estimate" style={{ left: `${at(estimate)}%` }} />
      </div>
      <div class="interval-scale" aria-hidden="true">
        <ScaleLabel at={at(lower)}>{points(lower)}</ScaleLabel>
        {/* Zero is labelled where the interval's labels leave it room; its line is always drawn. */}
        {Math.min(Math.abs(at(0) - at(lower)), Math.abs(at(0) - at(upper))) > 15 && (
          <ScaleLabel at={at(0)} zero>
            0
          </ScaleLabel>
        )}
        <ScaleLabel at={at(upper)}>{points(upper)}</ScaleLabel>
      </div>
    </div>
  );
}

/** A label under the interval at `at` percent, kept inside the bar near its ends. */
function ScaleLabel({ at, zero = false, children }: { at: number; zero?: boolean; children: string }) {
  const anchor = at < 15 ? 'start' : at > 85 ? 'end' : 'middle';
  return (
    <span class={`${anchor}${zero ? ' zero' : ''}`} style={{ left: `${at}%` }}>
      {children}
    </span>
  );
}

const DAILY_SERIES: ChartSeries[] = [
  { label: 'Personalized sessions', tone: 'tone-1' },
  { label: 'Personalized conversions', tone: 'tone-1', dashed: true },
  { label: 'Baseline sessions', tone: 'tone-2' },
  { label: 'Baseline conversions', tone: 'tone-2', dashed: true },
];

/** Each arm's sessions and conversions per UTC day, as lines. */
function DailyChart({ lift }: { lift: AudienceLift }) {
  const days = lift.daily;
  const data: uPlot.AlignedData = [
    days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000),
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
      summary={`Line chart of ${days.length} days from ${days[0]?.date} to ${days.at(-1)?.date}; the busiest day, ${busiest.day?.date}, had ${counted(busiest.total, 'session')}. The table below lists every day.`}
      series={DAILY_SERIES}
      data={data}
      options={(width, palette, library) => ({
        height: width < 500 ? 220 : 280,
        tzDate: (seconds) => library.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [
          { ...palette.axis, space: width < 500 ? 70 : 90 },
          { ...palette.axis, ...COUNT_AXIS },
        ],
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
      })}
    />
  );
}
