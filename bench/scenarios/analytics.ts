/**
 * Audience analytics at ABM scale: `GET /v0/pages/{id}/analytics/audiences` for a page with many
 * audiences (one per account) and many sessions.
 *
 *   npm run bench -- analytics [--audiences 1000] [--sessions 1000000] [--periods 30,90,1]
 *                              [--ending yesterday|now] [--arriving 0]
 *
 * Seeds one page with `audiences` audiences and `sessions` sessions spread evenly over the last 90
 * days and round-robin over the audiences, written straight into `sessions`, with the rollups that
 * ingestion keeps built from them in one pass (bench/support.ts). Then `tailor serve` on CPU 0 and,
 * for 30 days, 90 days and one day, each with both edges off the hour (whole days, whole hours and
 * raw sessions at both ends), Tailor against a bare server answering the same bytes (10
 * connections), and 200 requests one at a time.
 *
 * `--ending now` asks as the console's presets do: `startDate` alone, so that each period ends at the
 * request, in the hour in progress. `--arriving N` sends N event batches a second (a new session of
 * four events each) to an audience of the page, linked and published for it, from a load client of
 * their own, while everything is measured: sessions land in the period being read.
 */

import { createAudience } from '../../src/workflows/audience-versions/service.ts';
import { anyTables } from '../../tests/helpers/any-tables.ts';
import {
  compareWithBare,
  fmt,
  parseOptions,
  printMemory,
  printSetting,
  sequentialLatency,
  startArrivals,
} from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import {
  type Bench,
  benchPage,
  linkedBenchPage,
  newSessionEvents,
  openBench,
  rollUpSessions,
  serveProcess,
  tokenOf,
} from '../support.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;
const SEEDED_DAYS = 90;
const BATCH = 1000;
/** Under load, a few concurrent readers: the dashboards of a team, not a crowd. */
const CONNECTIONS = 10;

/** Session n: audience n mod audiences, started (n / sessions) of the 90 days before `now`, varied metrics. */
async function seedSessions(bench: Bench, pageId: string, audienceIds: string[], total: number, now: number) {
  for (let done = 0; done < total; done += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
      const n = done + i;
      return {
        tenant_id: bench.tenant.tenantId,
        id: `bench-session-${n}`,
        page_id: pageId,
        audience_id: audienceIds[n % audienceIds.length] as string,
        page_link_id: 'pagelink_bench',
        arm: 'personalized' as const,
        started_at: now - Math.floor((n / total) * SEEDED_DAYS * DAY),
        last_event_at: now,
        interactions: n % 4,
        cta_clicks: n % 7 === 0 ? 1 : 0,
        form_submits: n % 29 === 0 ? 1 : 0,
        max_scroll_depth: n % 101,
        time_spent_ms: (n % 60) * 1000,
      };
    });
    await anyTables(bench.database).insertInto('sessions').values(rows).execute();
  }
}

/** Sessions of the tenant that started after `at`: the arrivals' (every seeded one started before). */
async function sessionsSince(bench: Bench, at: number): Promise<number> {
  const { count } = await anyTables(bench.database)
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('tenant_id', '=', bench.tenant.tenantId)
    .where('started_at', '>', at)
    .executeTakeFirstOrThrow();
  return Number(count);
}

export default {
  name: 'analytics',
  summary: 'audience analytics of a page with many audiences and sessions: 30 days, 90 days, 1 day',
  usage:
    '--audiences 1000 --sessions 1000000 --periods 30,90,1 (days) --ending yesterday|now --arriving 0 (batches/s)',
  async run(args) {
    const options = parseOptions(args, {
      audiences: 1000,
      sessions: 1_000_000,
      periods: '30,90,1',
      ending: 'yesterday',
      arriving: 0,
    });
    if (options.ending !== 'yesterday' && options.ending !== 'now')
      throw new Error(`--ending is yesterday or now, not ${options.ending}`);
    const bench = await openBench('Analytics bench');
    const page = await benchPage(bench);
    const seedStart = Date.now();
    const audienceIds: string[] = [];
    for (let i = 0; i < options.audiences; i++) {
      audienceIds.push((await createAudience(bench.db, page.pageId, {}, Date.now())).audienceId);
    }
    // Each new audience queued the generation of its first version: the server's worker must not
    // spend the measurement writing them.
    await anyTables(bench.database)
      .deleteFrom('jobs')
      .where('tenant_id', '=', bench.tenant.tenantId)
      .execute();
    const now = Date.now();
    await seedSessions(bench, page.pageId, audienceIds, options.sessions, now);
    await rollUpSessions(bench);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const server = await serveProcess(bench);
    let arrivals: { stop(): Promise<void> } | undefined;
    try {
      if (options.arriving > 0) {
        const linked = await linkedBenchPage(server.url, bench, page.pageId);
        const events = newSessionEvents(await tokenOf(server.pagesUrl, linked.path));
        arrivals = startArrivals(server.pagesUrl, events, options.arriving);
      }
      printSetting(
        `analytics: ${fmt(options.audiences)} audiences, ${fmt(options.sessions)} sessions over ${SEEDED_DAYS} days, seeded in ${seedSeconds.toFixed(1)} s; periods ending ${options.ending}; ${fmt(options.arriving)} event batches a second arriving; tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; ${CONNECTIONS} connections`,
      );
      const iso = (ms: number) => new Date(ms).toISOString();
      // Ending yesterday, every period ends at 11:46:23 UTC: both its edges are partial hours of
      // partial days, with 12 whole hours before the first midnight and 11 after the last. Ending
      // now, it has no end date: it ends at each request.
      const end = Math.floor(now / DAY) * DAY - 12 * HOUR - 13 * MINUTE - 37_000;
      const target = (days: number) => ({
        path:
          options.ending === 'now'
            ? `/v0/pages/${page.pageId}/analytics/audiences?startDate=${iso(Date.now() - days * DAY)}`
            : `/v0/pages/${page.pageId}/analytics/audiences?startDate=${iso(end - days * DAY)}&endDate=${iso(end)}`,
        headers: { 'x-api-key': bench.tenant.apiKey },
      });
      const periods = options.periods
        .split(',')
        .map(Number)
        .map((days): [string, number] => [days === 1 ? '1 day' : `${days} days`, days]);
      for (const [label, days] of periods) {
        await compareWithBare(`analytics ${label}`, server.url, target(days), { connections: CONNECTIONS });
      }
      for (const [label, days] of periods) {
        await sequentialLatency(`analytics ${label}`, server.url, target(days));
      }
      printMemory(server.pid);
      if (arrivals) console.log(`arrived while measuring: ${fmt(await sessionsSince(bench, now))} sessions`);
    } finally {
      await arrivals?.stop();
      await server.close();
    }
  },
} satisfies Scenario;
