import { type Audience, type AudienceAnalyticsItem, paginate } from '@tailor/client';
import type uPlot from 'uplot';
import { type TailorClient, unwrap } from '../../api.ts';
import { Chart, COUNT_AXIS } from '../../components/chart.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { type Column, Table } from '../../components/table.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { PageTabs } from '../pages/tabs.tsx';
import { count, counted, decimal, percent, seconds } from './numbers.ts';
import { describePeriod, type Period, PeriodPicker, periodQuery, searchOf, usePeriod } from './period.tsx';

/** The chart compares the audiences with the most sessions; the table lists every one. */
const CHARTED = 10;

/** An audience's figures for the period, with its name. */
interface Row extends AudienceAnalyticsItem {
  name: string;
  holdoutPercent: number;
}

async function allAudiences(client: TailorClient, pageId: string) {
  const audiences = new Map<string, Audience>();
  for await (const audience of paginate(client, '/v0/pages/{page_id}/audiences', {
    params: { path: { page_id: pageId }, query: { limit: 100 } },
  })) {
    audiences.set(audience.audienceId, audience);
  }
  return audiences;
}

/** How a page's audiences did over a chosen period: totals, a chart of the busiest, and a table of all. */
export function PageAnalytics({ pageId }: { pageId: string }) {
  const { client } = useSession();
  const [period, setPeriod] = usePeriod();
  const page = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } })),
    [pageId],
  );
  const rows = useLoad(async (): Promise<Row[]> => {
    const [analytics, audiences] = await Promise.all([
      unwrap(
        client.GET('/v0/pages/{page_id}/analytics/audiences', {
          params: { path: { page_id: pageId }, query: periodQuery(period) },
        }),
      ),
      allAudiences(client, pageId),
    ]);
    return analytics.items
      .map((item) => {
        const audience = audiences.get(item.audienceId);
        return {
          ...item,
          name: audience?.effectiveName ?? item.audienceId,
          holdoutPercent: audience?.holdoutPercent ?? 0,
        };
      })
      .sort((a, b) => b.totalSessions - a.totalSessions || a.name.localeCompare(b.name));
  }, [pageId, searchOf(period)]);

  return (
    <>
      <ViewHead
        title={page.data ? `Analytics of ${page.data.name}` : 'Analytics'}
        trail={
          <>
            <Link href="/pages">Pages</Link> ›{' '}
            <Link href={`/pages/${pageId}`}>{page.data?.name ?? 'Page'}</Link>
          </>
        }
      />
      <PageTabs pageId={pageId} current="/analytics" />
      <PeriodPicker period={period} onPeriod={setPeriod} failure={rows.failure} />
      <ProblemMessage failure={page.failure ?? rows.failure} />
      <div aria-busy={rows.loading} aria-live="polite">
        {rows.loading && !rows.data && <p class="muted">Loading…</p>}
        {rows.data && <Report rows={rows.data} pageId={pageId} period={period} />}
      </div>
    </>
  );
}

function Report({ rows, pageId, period }: { rows: Row[]; pageId: string; period: Period }) {
  if (rows.length === 0)
    return <p class="muted">This page has no audience yet, so there is nothing to count.</p>;
  const sessions = rows.reduce((sum, row) => sum + row.totalSessions, 0);
  const conversions = rows.reduce((sum, row) => sum + row.conversionCount, 0);
  const bounces = rows.reduce((sum, row) => sum + row.bounceCount, 0);
  return (
    <>
      <dl class="card facts totals" aria-label="Totals">
        <div>
          <dt>Sessions</dt>
          <dd class="figure">{count(sessions)}</dd>
        </div>
        <div>
          <dt>Conversions</dt>
          <dd class="figure">{count(conversions)}</dd>
        </div>
        <div>
          <dt>Conversion rate</dt>
          <dd class="figure">{percent(sessions ? conversions / sessions : 0)}</dd>
        </div>
        <div>
          <dt>Bounce rate</dt>
          <dd class="figure">{percent(sessions ? bounces / sessions : 0)}</dd>
        </div>
      </dl>
      {sessions === 0 ? (
        <p class="muted">No session started in the {describePeriod(period)}.</p>
      ) : (
        <section aria-labelledby="chart-heading">
          <h2 id="chart-heading">
            {rows.length > CHARTED
              ? `The ${CHARTED} audiences with the most sessions`
              : 'Sessions by audience'}
          </h2>
          <AudienceChart rows={rows.slice(0, CHARTED)} />
        </section>
      )}
      <section aria-labelledby="table-heading">
        <h2 id="table-heading">Every audience, {describePeriod(period)}</h2>
        <Table
          caption="Audience analytics"
          columns={columns(pageId, period)}
          items={rows}
          rowKey={(row) => row.audienceId}
        />
      </section>
    </>
  );
}

function columns(pageId: string, period: Period): Column<Row>[] {
  return [
    {
      label: 'Audience',
      cell: (row) => <Link href={`/pages/${pageId}/audiences/${row.audienceId}`}>{row.name}</Link>,
    },
    { label: 'Sessions', cell: (row) => count(row.totalSessions) },
    {
      label: 'Conversions',
      cell: (row) => `${count(row.conversionCount)} (${percent(row.conversionRate)})`,
    },
    { label: 'Bounce rate', cell: (row) => percent(row.bounceRate) },
    { label: 'CTA clicks', cell: (row) => count(row.ctaSessions) },
    { label: 'Forms sent', cell: (row) => `${count(row.formSubmitCount)} (${percent(row.formSubmitRate)})` },
    { label: 'Avg time', cell: (row) => seconds(row.avgTimeSpentSeconds) },
    { label: 'Avg scroll', cell: (row) => percent(row.avgScrollDepthPercentage / 100) },
    { label: 'Interactions', cell: (row) => decimal(row.avgInteractionsPerSession) },
    {
      label: 'Lift',
      cell: (row) => (
        <Link href={`/pages/${pageId}/audiences/${row.audienceId}/lift${searchOf(period)}`}>
          {row.holdoutPercent > 0 ? `Lift (${row.holdoutPercent} % holdout)` : 'Lift'}
        </Link>
      ),
    },
  ];
}

/** Shortens a name with an ellipsis until it fits `width` pixels in `font`, as the canvas measures it. */
function fitTo(width: number, font: string): (name: string) => string {
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return (name) => name;
  context.font = font;
  return (name) => {
    let shown = name;
    while (shown.length > 1 && context.measureText(shown).width > width) shown = `${shown.slice(0, -2)}…`;
    return shown;
  };
}

const SERIES = [
  { label: 'Sessions', tone: 'tone-1' as const },
  { label: 'Conversions', tone: 'tone-2' as const },
];

/** Sessions and conversions of each audience, as pairs of horizontal bars named on the left. */
function AudienceChart({ rows }: { rows: Row[] }) {
  const data: uPlot.AlignedData = [
    rows.map((_, index) => index),
    rows.map((row) => row.totalSessions),
    rows.map((row) => row.conversionCount),
  ];
  const summary = rows
    .map(
      (row) =>
        `${row.name}: ${counted(row.totalSessions, 'session')}, ${counted(row.conversionCount, 'conversion')}`,
    )
    .join('; ');
  return (
    <Chart
      summary={`Bar chart. ${summary}.`}
      series={SERIES}
      data={data}
      options={(width, palette, library) => {
        const labelWidth = Math.min(220, Math.round(width * 0.35));
        const label = fitTo(labelWidth - 16, String(palette.axis.font));
        return {
          height: rows.length * 44 + 48,
          scales: {
            // The busiest audience on top: the bars run along y, the audiences down x.
            x: { time: false, ori: 1, dir: -1, range: [-0.5, rows.length - 0.5] },
            y: { ori: 0, range: (_plot, _min, max) => [0, Math.max(1, max * 1.08)] },
          },
          axes: [
            {
              ...palette.axis,
              scale: 'x',
              side: 3,
              size: labelWidth,
              grid: { show: false },
              splits: () => rows.map((_, index) => index),
              values: (_plot, splits) => splits.map((index) => label(rows[index]?.name ?? '')),
            },
            { ...palette.axis, ...COUNT_AXIS, scale: 'y', side: 2, space: 60 },
          ],
          series: [
            {},
            ...SERIES.map((item, index) => ({
              label: item.label,
              fill: palette.series[index],
              stroke: palette.series[index],
              paths: library.paths.bars?.({ size: [0.36, 18], align: index === 0 ? -1 : 1 }),
              points: { show: false },
            })),
          ],
        };
      }}
    />
  );
}
