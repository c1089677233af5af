import './lift.css';
import type { AudienceLift } from '@tailor/client';
import { unwrap } from '../../api.ts';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { Table } from '../../components/table.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { DailyChart, NarrowingChart } from './lift-charts.tsx';
import { IntervalPlot } from './lift-intervals.tsx';
import { LiftVerdict, MINIMUM_LIFT, verdictOf } from './lift-verdict.tsx';
import { chance, change, count, percent, points, pointsRange } from './numbers.ts';
import { describePeriod, type Period, PeriodPicker, periodQuery, searchOf, usePeriod } from './period.tsx';

interface Ids {
  pageId: string;
  audienceId: string;
}

/** Does personalization pay for this audience? The verdict, both arms, the lift with its intervals, the days. */
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
  const verdict = verdictOf(lift, audienceHref);
  // While something the lift needs is missing, its figures say nothing the verdict does not.
  const compared = verdict.tone !== 'missing';
  const visited = lift.personalized.sessions + lift.baseline.sessions > 0;
  return (
    <>
      <LiftVerdict verdict={verdict} />
      {lift.srm.mismatch && (
        <div class="notice warn">
          <p>
            <strong>The split is not what the holdout asks for</strong> (sample-ratio mismatch, p ={' '}
            {lift.srm.pValue?.toPrecision(2)}): visitors were lost or moved in one arm, or the holdout changed
            during the period. Do not trust the lift below.
          </p>
        </div>
      )}
      <section aria-labelledby="arms-heading">
        <h2 id="arms-heading">Both sides, {describePeriod(period)}</h2>
        <Table
          caption="Visitors and conversions of each side"
          rowKey={(row) => row.name}
          items={[
            { name: 'Personalized', arm: lift.personalized, share: 100 - lift.holdoutPercent },
            { name: 'Baseline (holdout)', arm: lift.baseline, share: lift.holdoutPercent },
          ]}
          columns={[
            { label: 'Side', cell: (row) => `${row.name} · ${row.share} % of visitors` },
            { label: 'Visitors', cell: (row) => count(row.arm.sessions) },
            { label: 'Conversions', cell: (row) => count(row.arm.conversions) },
            { label: 'Conversion rate', cell: (row) => percent(row.arm.conversionRate) },
          ]}
        />
      </section>
      {compared && (
        <section aria-labelledby="lift-heading">
          <h2 id="lift-heading">Lift</h2>
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
                <dt>Chance to beat the baseline</dt>
                <dd class="figure">{chance(lift.chanceToBeatBaseline)}</dd>
              </div>
            </dl>
            <IntervalPlot lift={lift} />
          </div>
          <details class="why-two">
            <summary>Why two intervals?</summary>
            <p>
              The fixed interval is right 95 % of the time only if it is read once, at an end planned in
              advance. Read every day, it will sooner or later exclude zero by chance: in a simulation of
              experiments with no true difference, checked daily for 60 days, it named a winner in about a
              third of them. The always-valid interval is wider, so that it stays right 95 % of the time
              however often it is read: the verdict above comes from it, and may be acted on the day it
              appears.
            </p>
          </details>
        </section>
      )}
      {visited && (
        <section aria-labelledby="daily-heading">
          <h2 id="daily-heading">Day by day (UTC)</h2>
          <h3>The always-valid interval, narrowing</h3>
          <NarrowingChart days={lift.daily} />
          <h3>Visitors and conversions</h3>
          <DailyChart days={lift.daily} />
          <details>
            <summary>The days as a table</summary>
            <Table
              caption="Visitors, conversions and the always-valid interval per day"
              rowKey={(day) => day.date}
              items={[...lift.daily].reverse()}
              columns={[
                { label: 'Day', cell: (day) => day.date },
                {
                  label: 'Personalized',
                  cell: (day) =>
                    `${count(day.personalized.sessions)} visitors, ${count(day.personalized.conversions)} conversions`,
                },
                {
                  label: 'Baseline',
                  cell: (day) =>
                    `${count(day.baseline.sessions)} visitors, ${count(day.baseline.conversions)} conversions`,
                },
                {
                  label: 'Always-valid interval up to this day',
                  cell: (day) => (day.confidenceSequence ? pointsRange(day.confidenceSequence) : 'not yet'),
                },
              ]}
            />
          </details>
        </section>
      )}
    </>
  );
}
