import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import type { TenantDb } from '../../src/db/tenant-db.ts';
import { CLOSING_MS } from '../../src/resources/sessions/service.ts';
import { closedHoursVersion, TOTAL_FIELDS } from '../../src/resources/sessions/store.ts';
import type { SessionsTables } from '../../src/resources/sessions/tables.ts';
import { recordVisit } from '../../src/workflows/visits/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { itemOf, storedSessions } from '../helpers/expected-analytics.ts';
import { QueryCounter } from '../helpers/query-counter.ts';
import { type Client, onPostgres, startServer, type TestServer, testDatabase } from '../helpers/server.ts';
import { type TrackedPage, trackedPage } from '../helpers/tracked-page.ts';

// A period that ends now (the console's presets) keeps the sums of its whole hours with the version
// of the tenant's closed hours (migration 0036) and reads only its partial hours afresh. Here: that
// its answers are exact against the sessions while sessions arrive in the hour in progress and
// when one changes in an hour that has ended, that the kept sums are served while only the hour in
// progress moves, and that the version is moved by exactly what changes the sums it keeps.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const queries = new QueryCounter();
let base: Database;
let server: TestServer;
/** Another node on the same database, with sums of its own. */
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

/**
 * Waits, when needed, until the hour in progress has been on for CLOSING_MS and will go on for the
 * rest of the test (the sums are kept only then): at most a minute and a half, one run in forty.
 */
async function untilMidHour(): Promise<void> {
  const intoHour = Date.now() % HOUR;
  if (intoHour < CLOSING_MS + 5_000) await sleep(CLOSING_MS + 5_000 - intoHour);
  else if (intoHour > HOUR - 30_000) await sleep(HOUR - intoHour + CLOSING_MS + 5_000);
}

/** The answer of `node` for the period from `start` to now, checked against the stored sessions. */
async function expectExact(page: TrackedPage, start: number, node = server): Promise<void> {
  const stored = await storedSessions(base, page.pageId);
  const response = await fetch(
    `${node.url}/v0/pages/${page.pageId}/analytics/audiences?startDate=%2B${start}`,
    {
      headers: { 'x-api-key': api.apiKey as string },
    },
  );
  const end = Date.now();
  expect(response.status).toBe(200);
  const { items } = (await response.json()) as { items: { audienceId: string }[] };
  const ordered = [...page.audiences].sort().reverse();
  // Every session stored starts before the request, none after the answer: the period's end lies
  // between, and no session lies there.
  expect(items).toEqual(ordered.map((audienceId) => itemOf(stored, audienceId, { start, end })));
}

describe('analytics of a period that ends now', () => {
  it('is exact while sessions arrive in the hour in progress, serving the kept whole hours', async () => {
    await untilMidHour();
    const now = Date.now();
    const hourStart = now - (now % HOUR);
    const start = hourStart - 5 * HOUR - 17 * MINUTE;
    const page = await trackedPage(server, api, 3);
    // A partial hour at the start, whole hours, and the hour in progress.
    for (const [n, at] of [start + MINUTE, start + HOUR, hourStart - 2 * HOUR, hourStart - 1].entries())
      await page.session(at, n % 3, n % 2 === 0);
    await page.session(hourStart + 1);
    queries.count = 0;
    await expectExact(page, start);
    const computing = queries.count;

    // Kept: the page, the closed hours' version, the audiences, the first partial hour's sessions,
    // the hour in progress's rollups and its sessions yet to start.
    queries.count = 0;
    await expectExact(page, start);
    const kept = queries.count;
    expect(kept).toBeLessThanOrEqual(6);
    expect(computing - kept).toBe(1);
    // One that starts a moment from now (a client's clock ahead) counts once it has started.
    await page.session(Date.now() + 20_000, 2, true);
    await expectExact(page, start);
    for (let n = 0; n < 3; n++) {
      await page.session(Date.now(), n, true);
      await expectExact(page, start);
      await expectExact(page, start, other);
    }
    // Sessions arriving in the hour in progress left the kept sums standing.
    queries.count = 0;
    await expectExact(page, start);
    expect(queries.count).toBe(kept);
  });

  it('shows a change to an hour that has ended in the next answer of every node', async () => {
    await untilMidHour();
    const now = Date.now();
    const hourStart = now - (now % HOUR);
    const start = hourStart - 3 * HOUR;
    const page = await trackedPage(server, api, 3);
    const earlier = await page.session(hourStart - 2 * HOUR + 10 * MINUTE);
    await page.session(hourStart - HOUR + 5 * MINUTE, 1);
    for (const node of [server, other]) await expectExact(page, start, node);
    // A later batch of a session that started two hours ago: a click, and more time.
    await recordVisit(
      page.db,
      earlier,
      [
        { type: 'cta_click', at: now, actionId: 'cta' },
        { type: 'time', at: now, ms: 30_000 },
      ],
      now,
    );
    for (const node of [server, other]) await expectExact(page, start, node);
    // A new session that started in an hour that has ended (a clock behind), of a new audience.
    page.audiences.push((await api.post(`/v0/pages/${page.pageId}/audiences`, {})).body.audienceId);
    await page.session(hourStart - HOUR + 30 * MINUTE, 3, true);
    for (const node of [server, other]) await expectExact(page, start, node);
  });
});

describe("the closed hours' version", () => {
  it('moves with every total of an hour that has ended, its insert and its delete; not with the hour in progress or a change of nothing', async () => {
    await untilMidHour();
    const page = await trackedPage(server, api, 3);
    const hourStart = Date.now() - (Date.now() % HOUR);
    await page.session(hourStart - 2 * HOUR);
    await page.session(hourStart + 1, 1);
    const db = page.db as TenantDb<SessionsTables>;
    const hourly = anyTables(server.database);
    const version = () => closedHoursVersion(db);
    const ofHour = (audience: number, hour: number) =>
      hourly
        .updateTable('audience_hourly_stats')
        .where('audience_id', '=', page.audiences[audience] as string)
        .where('hour', '=', hour);
    for (const field of TOTAL_FIELDS) {
      const before = await version();
      await ofHour(0, hourStart - 2 * HOUR)
        .set({ [field]: sql`${sql.ref(field)} + 1` })
        .execute();
      expect(await version(), field).toBeGreaterThan(before);
    }
    const unmoved = await version();
    // The hour in progress, a new session in it, and an update that changes no total.
    await ofHour(1, hourStart).set({ sessions: sql`sessions + 1` }).execute();
    await page.session(Date.now(), 2);
    await ofHour(0, hourStart - 2 * HOUR)
      .set({ sessions: sql`sessions` })
      .execute();
    expect(await version()).toBe(unmoved);
    // A session of an hour that has ended starts its hourly row.
    await page.session(hourStart - 3 * HOUR, 2);
    const inserted = await version();
    expect(inserted).toBeGreaterThan(unmoved);
    await hourly
      .deleteFrom('audience_hourly_stats')
      .where('audience_id', '=', page.audiences[0] as string)
      .execute();
    expect(await version()).toBeGreaterThan(inserted);
  });

  it("is the tenant's own", async () => {
    await untilMidHour();
    const page = await trackedPage(server, api, 3);
    const stranger = server.database.forTenant(
      (await server.newTenant()).tenantId,
    ) as TenantDb<SessionsTables>;
    const strangers = await closedHoursVersion(stranger);
    await page.session(Date.now() - 2 * HOUR);
    await page.session(Date.now() - 2 * HOUR + 1);
    expect(await closedHoursVersion(stranger)).toBe(strangers);
  });
});

// The triggers are the declaration of what invalidates the kept sums: both engines have each.
describe("the closed hours' triggers", () => {
  it('are on the hourly rollups, for their inserts, updates and deletes', async () => {
    const names = onPostgres
      ? (
          await sql<{ name: string }>`SELECT tgname AS name FROM pg_trigger
            WHERE tgrelid = 'audience_hourly_stats'::regclass AND NOT tgisinternal`.execute(anyTables(base))
        ).rows
      : (
          await sql<{ name: string }>`SELECT name FROM sqlite_master
            WHERE type = 'trigger' AND tbl_name = 'audience_hourly_stats'`.execute(anyTables(base))
        ).rows;
    expect(
      names
        .map((row) => row.name)
        .filter((name) => name.endsWith('_in_closed_hours'))
        .sort(),
    ).toEqual([
      'hourly_stats_added_in_closed_hours',
      'hourly_stats_changed_in_closed_hours',
      'hourly_stats_removed_in_closed_hours',
    ]);
  });
});
