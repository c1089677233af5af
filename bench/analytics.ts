/**
 * The audience analytics endpoint over a page with many sessions.
 *
 *   npx tsx bench/analytics.ts [sessions]            # SQLite in a temp dir
 *   DATABASE_URL=postgres://… TAILOR_SECRET=… npx tsx bench/analytics.ts [sessions]
 *
 * Seeds one page with 10 audiences and `sessions` sessions (default 1,000,000) spread over the last
 * 90 days, written straight into the tables with the hourly rollups the ingestion keeps, then drives
 * the endpoint with autocannon for a few periods. Prints one line per scenario.
 */
import autocannon from 'autocannon';
import { createAudience } from '../src/workflows/audience-versions/service.ts';
import { benchPage, openBench, rollUpSessions, serveBench } from './support.ts';

const total = Number(process.argv[2] ?? 1_000_000);
const BATCH = 1000;
const DAY = 86_400_000;
const _HOUR = 3_600_000;

const bench = await openBench('Analytics bench');
const { database, tenant, db } = bench;
const page = await benchPage(db);
const audiences: string[] = [];
for (let i = 0; i < 10; i++) audiences.push((await createAudience(db, page.pageId, {})).audienceId);

const now = Date.now();
const seedStart = Date.now();
for (let done = 0; done < total; done += BATCH) {
  const rows = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
    const n = done + i;
    return {
      tenant_id: tenant.tenantId,
      id: `bench-session-${n}`,
      page_id: page.pageId,
      audience_id: audiences[n % audiences.length] as string,
      page_link_id: 'pagelink_bench',
      started_at: now - Math.floor((n / total) * 90 * DAY),
      last_event_at: now,
      interactions: n % 4,
      cta_clicks: n % 7 === 0 ? 1 : 0,
      form_submits: n % 29 === 0 ? 1 : 0,
      max_scroll_depth: n % 101,
      time_spent_ms: (n % 60) * 1000,
    };
  });
  await database.acrossTenants.insertInto('sessions').values(rows).execute();
}
await rollUpSessions(bench);
const seedSeconds = (Date.now() - seedStart) / 1000;

const server = await serveBench(bench);
const url = server.url;
const iso = (ms: number) => new Date(ms).toISOString();
const base = `${url}/v0/pages/${page.pageId}/analytics/audiences`;
const scenarios: [string, string][] = [
  ['default period (30 days)', base],
  [
    '90 days, minute-aligned edges',
    `${base}?startDate=${iso(now - 90 * DAY + 17 * 60_000)}&endDate=${iso(now - 13 * 60_000)}`,
  ],
  ['one day', `${base}?startDate=${iso(now - 2 * DAY)}&endDate=${iso(now - DAY)}`],
];

console.log(`database: ${database.dialect.name}; sessions: ${total}; seeded in ${seedSeconds.toFixed(1)} s`);
for (const [name, target] of scenarios) {
  const result = await autocannon({
    url: target,
    headers: { 'x-api-key': tenant.apiKey },
    connections: 10,
    duration: 5,
  });
  console.log(
    `${name}: ${result.requests.average.toFixed(0)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors + result.non2xx}`,
  );
}
console.log(`rss: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`);

await server.close();
