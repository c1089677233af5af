import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { AudienceAnalyticsItem } from '../../src/resources/sessions/schema.ts';
import { recordVisit } from '../../src/workflows/visits/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { QueryCounter } from '../helpers/query-counter.ts';
import { type Client, startServer, type TestServer, testDatabase } from '../helpers/server.ts';
import { type TrackedPage, trackedPage } from '../helpers/tracked-page.ts';

// The analytics of a period with a fixed end are kept per process with the version of the page's
// data (migration 0029) and served again while it has not moved: here, that a kept answer is the
// one computed afresh, and that any change to what it reads shows in the next answer, on every node.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Whole hours from 10:00 to 12:00 and partial ones on both sides. */
const START = Date.UTC(2026, 1, 10, 9, 15);
const END = Date.UTC(2026, 1, 10, 12, 45);
const PERIOD = `startDate=${new Date(START).toISOString()}&endDate=${new Date(END).toISOString()}`;

const queries = new QueryCounter();
let base: Database;
let server: TestServer;
/** Another node on the same database, with answers of its own. */
let other: TestServer;
let api: Client;

beforeAll(async () => {
  base = await testDatabase();
  server = await startServer({ database: base.withPlugin(queries) });
  other = await startServer({ database: base });
  api = await server.newTenant();
}, 60_000);
afterAll(async () => {
  await other.close();
  await server.close();
  await base.close();
});

/** The answer's text and items, from `node`. */
async function analytics(page: TrackedPage, query = PERIOD, node = server) {
  const response = await fetch(`${node.url}/v0/pages/${page.pageId}/analytics/audiences?${query}`, {
    headers: { 'x-api-key': api.apiKey as string },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const text = await response.text();
  return { text, items: JSON.parse(text).items as { audienceId: string; [figure: string]: unknown }[] };
}

/** The first audience's item of the answer of `node`. */
async function firstAudience(page: TrackedPage, node = server, query = PERIOD) {
  return (await analytics(page, query, node)).items.find((item) => item.audienceId === page.audiences[0]);
}

describe('kept analytics answers', () => {
  it('serve a fixed period again, the same bytes, reading only the page and the version', async () => {
    const page = await trackedPage(server, api, 2);
    // A partial hour at each end and one whole hour.
    for (const at of [START + MINUTE, START + HOUR, END - MINUTE]) await page.session(at, 0, true);
    queries.count = 0;
    const computed = await analytics(page);
    const computing = queries.count;
    queries.count = 0;
    const kept = await analytics(page);
    expect(kept.text).toBe(computed.text);
    // Compact JSON with the fields in the schema's order, as the response schema's serializer writes it.
    expect(kept.text).toBe(JSON.stringify(JSON.parse(kept.text)));
    for (const item of kept.items)
      expect(Object.keys(item)).toEqual(Object.keys(AudienceAnalyticsItem.properties));
    // The key, the page and the version at most; computing also read the audiences and three spans.
    expect(queries.count).toBeLessThanOrEqual(3);
    expect(computing - queries.count).toBe(4);
    expect(kept.items.map((item) => item.audienceId)).toEqual([...page.audiences].sort().reverse());
    expect(kept.items[1]).toMatchObject({ totalSessions: 3, conversionCount: 3, conversionRate: 1 });
    // The same instants spelled otherwise are the same period.
    const spelled = await analytics(page, `startDate=%2B${START}&endDate=%2B${END}`);
    expect(spelled.text).toBe(computed.text);
  });

  it('show a new session, and a session that changes, in the next answer of every node', async () => {
    const page = await trackedPage(server, api, 2);
    await page.session(START + HOUR);
    for (const node of [server, other]) {
      expect(await firstAudience(page, node)).toMatchObject({ totalSessions: 1, conversionCount: 0 });
    }
    // A session in a partial hour, recorded through the first node.
    const visit = await page.session(END - MINUTE);
    for (const node of [server, other]) {
      expect(await firstAudience(page, node)).toMatchObject({ totalSessions: 2, conversionCount: 0 });
    }
    // A later batch of that session, with a click.
    await recordVisit(page.db, visit, [{ type: 'cta_click', at: END, actionId: 'cta' }], END + MINUTE);
    for (const node of [server, other]) {
      expect(await firstAudience(page, node)).toMatchObject({ totalSessions: 2, conversionCount: 1 });
    }
    // A session outside the period changes the version, not the figures.
    await page.session(END + HOUR);
    expect(await firstAudience(page, other)).toMatchObject({ totalSessions: 2, conversionCount: 1 });
  });

  it('show a new audience of the page in the next answer', async () => {
    const page = await trackedPage(server, api, 2);
    expect((await analytics(page)).items).toHaveLength(2);
    await api.post(`/v0/pages/${page.pageId}/audiences`, {});
    expect((await analytics(page)).items).toHaveLength(3);
    expect((await analytics(page, PERIOD, other)).items).toHaveLength(3);
  });

  it('move with any write to the sessions or running totals, not only ingestion', async () => {
    const page = await trackedPage(server, api, 2);
    const edge = await page.session(START + MINUTE);
    await page.session(START + HOUR);
    expect(await firstAudience(page)).toMatchObject({ totalSessions: 2, ctaSessions: 0 });
    // A session of a partial hour, read from the sessions themselves.
    await anyTables(server.database)
      .updateTable('sessions')
      .set({ cta_clicks: 1 })
      .where('id', '=', edge.sessionId)
      .execute();
    expect(await firstAudience(page)).toMatchObject({ totalSessions: 2, ctaSessions: 1 });
    // A whole hour, read from the running totals (moved by the hourly rollup's trigger).
    await anyTables(server.database)
      .updateTable('audience_hourly_stats')
      .set((eb) => ({ sessions: eb('sessions', '+', 5) }))
      .where('audience_id', '=', page.audiences[0] as string)
      .where('hour', '=', START - 15 * MINUTE + HOUR)
      .execute();
    expect(await firstAudience(page)).toMatchObject({ totalSessions: 7 });
  });

  it('are not kept for a period that ends now: it moves with the clock', async () => {
    const page = await trackedPage(server, api, 2);
    const lastHour = `startDate=%2B${Date.now() - HOUR}`;
    // A session that starts a moment from now (a clock ahead): no write comes when the end passes it.
    await page.session(Date.now() + 1500);
    expect(await firstAudience(page, server, lastHour)).toMatchObject({ totalSessions: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await firstAudience(page, server, lastHour)).toMatchObject({ totalSessions: 1 });
    expect(await firstAudience(page, server, '')).toMatchObject({ totalSessions: 1 });
  });

  it('answer 404 for a page that is not the tenant’s, kept answers or not', async () => {
    const page = await trackedPage(server, api, 2);
    await analytics(page);
    const stranger = await server.newTenant();
    const response = await stranger.get(`/v0/pages/${page.pageId}/analytics/audiences?${PERIOD}`);
    expect(response.status).toBe(404);
  });
});
