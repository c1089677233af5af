/**
 * The lift endpoint of one audience with a holdout, over a million sessions: one page, one audience
 * (holdout 10%), `--sessions` sessions spread over the last 90 days, every tenth in the baseline
 * arm; a CTA click for 1 in 13 personalized and 1 in 17 baseline sessions (7.7% against 5.9%),
 * written straight into `sessions` with the rollups ingestion keeps.
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
} from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { benchPage, openBench, rollUpSessions, serveBench } from '../support.ts';

const BATCH = 1000;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

export default {
  name: 'lift',
  summary: 'GET …/analytics/audiences/{id}/lift over an audience with a 10% holdout',
  usage: '--sessions 1000000 --connections 10',
  async run(args) {
    const options = parseOptions(args, { sessions: 1_000_000, connections: 10 });
    const bench = await openBench('Lift bench');
    const { database, tenant, db } = bench;
    const page = await benchPage(bench);
    const audienceId = (await createAudience(db, page.pageId, { holdoutPercent: 10 }, Date.now())).audienceId;
    const now = Date.now();
    const seedStart = Date.now();
    for (let done = 0; done < options.sessions; done += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, options.sessions - done) }, (_, i) => {
        const n = done + i;
        const baseline = n % 10 === 3;
        return {
          tenant_id: tenant.tenantId,
          id: `bench-lift-${n}`,
          page_id: page.pageId,
          audience_id: audienceId,
          page_link_id: 'pagelink_bench',
          arm: baseline ? 'baseline' : 'personalized',
          started_at: now - Math.floor((n / options.sessions) * 90 * DAY),
          last_event_at: now,
          interactions: n % 4,
          cta_clicks: (baseline ? n % 17 : n % 13) === 0 ? 1 : 0,
          form_submits: 0,
          max_scroll_depth: n % 101,
          time_spent_ms: (n % 60) * 1000,
        } as const;
      });
      await anyTables(database).insertInto('sessions').values(rows).execute();
    }
    await rollUpSessions(bench);
    const seeded = (Date.now() - seedStart) / 1000;

    const server = await serveBench(bench);
    try {
      const iso = (ms: number) => new Date(ms).toISOString();
      const lift = (start: number, end: number) => ({
        path: `/v0/pages/${page.pageId}/analytics/audiences/${audienceId}/lift?startDate=${iso(start)}&endDate=${iso(end)}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      // Hour-aligned periods end with the hour holding the newest session; the unaligned one ends
      // at 47:23 past the hour before, so both its edges are partial hours read from the sessions.
      const hourEnd = Math.floor(now / HOUR) * HOUR + HOUR;
      const offEnd = hourEnd - HOUR - 13 * MINUTE + 23_000;
      const periods = [
        ['30 days to now (hour-aligned)', lift(hourEnd - 30 * DAY, hourEnd)],
        ['90 days (hour-aligned)', lift(hourEnd - 90 * DAY, hourEnd)],
        ['1 day (hour-aligned)', lift(hourEnd - DAY, hourEnd)],
        ['30 days, edges off the hour', lift(offEnd - 30 * DAY, offEnd)],
      ] as const;
      printSetting(
        `sessions: ${fmt(options.sessions)} (1 audience, holdout 10%), seeded in ${seeded.toFixed(1)} s; server in this process on CPU 0, ${options.connections} connections`,
      );
      for (const [label, target] of periods) {
        await compareWithBare(`lift, ${label}`, server.url, target, { connections: options.connections });
      }
      for (const [label, target] of periods) await sequentialLatency(`lift, ${label}`, server.url, target);
      printMemory();
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
