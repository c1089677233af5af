import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import type { SessionEvent } from '../../src/resources/sessions/schema.ts';
import { confidenceSequence } from '../../src/resources/sessions/sequential.ts';
import type { Visit } from '../../src/resources/sessions/service.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { recordFormInSession, recordVisit } from '../../src/workflows/visits/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import {
  converted,
  itemOf,
  type StoredSession,
  storedSessions,
  within,
} from '../helpers/expected-analytics.ts';
import { QueryCounter } from '../helpers/query-counter.ts';
import { type Client, startServer, type TestServer, testDatabase } from '../helpers/server.ts';

// The lift endpoint adds up rollups of whole days and whole hours, the analytics endpoint takes
// the difference of two running totals for the whole hours, and both read raw sessions only at a
// period's edges. Here their answers are checked, figure for figure, against
// totals computed straight from the stored sessions by the definitions in docs/analytics.md, for
// periods whose edges fall at every granularity: on a millisecond, a minute, an hour, a midnight, the
// first of a month.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The sessions start between these: from late January over February into March 2026. */
const FIRST = Date.UTC(2026, 0, 28);
const LAST = Date.UTC(2026, 2, 3);
/** Moments around which sessions crowd, on and just before the moment too: months' and days' edges. */
const CROWDED = [
  Date.UTC(2026, 1, 1),
  Date.UTC(2026, 1, 10, 10),
  Date.UTC(2026, 1, 14),
  Date.UTC(2026, 2, 1),
];

const queries = new QueryCounter();
let base: Database;
let server: TestServer;
let api: Client;
let pageId: string;
/** The page's audiences, newest first, as the endpoint lists them. */
let audiences: string[];

let stored: StoredSession[];

/** One session as a visitor's browser sends it: a first batch, maybe a form, maybe a later batch. */
const sessionArbitrary = (start: fc.Arbitrary<number>) =>
  fc.record({
    at: start,
    audience: fc.nat({ max: 2 }),
    baseline: fc.boolean(),
    interactions: fc.nat({ max: 3 }),
    depth: fc.nat({ max: 100 }),
    ms: fc.nat({ max: 20_000 }),
    cta: fc.boolean(),
    form: fc.boolean(),
    /** A later batch, up to three hours on: it counts in the period the session started in. */
    later: fc.option(fc.record({ after: fc.integer({ min: 1, max: 3 * HOUR }), ms: fc.nat({ max: 9_000 }) })),
  });

const sessions = [
  ...fc.sample(sessionArbitrary(fc.integer({ min: FIRST, max: LAST - 1 })), { seed: 16, numRuns: 240 }),
  ...CROWDED.flatMap((moment, i) => [
    ...fc.sample(sessionArbitrary(fc.integer({ min: moment - 90 * MINUTE, max: moment + 90 * MINUTE })), {
      seed: 100 + i,
      numRuns: 25,
    }),
    // On the moment and a millisecond before it, for every audience.
    ...fc
      .sample(sessionArbitrary(fc.constant(moment)), { seed: 200 + i, numRuns: 6 })
      .map((session, k) => ({ ...session, at: moment - (k % 2), audience: k % 3 })),
  ]),
];

beforeAll(async () => {
  base = await testDatabase();
  server = await startServer({ database: base.withPlugin(queries) });
  api = await server.newTenant();
  const page = await api.post('/v0/pages', {
    name: 'Measured',
    pageContext: 'C.',
    brandId: 'b',
    actions: [{ actionId: 'cta', buttonTitle: 'Go', actionType: 'link' }],
    actionCardWidgets: [],
    scripts: [],
  });
  pageId = page.body.pageId;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await api.post(`/v0/pages/${pageId}/audiences`, {})).body.audienceId);
  const link = await api.post('/v0/page_links', {
    path: '/measured',
    target: { targetType: 'audience', audienceId: ids[0] },
  });
  const db = server.database.forTenant(api.tenantId);
  for (const [n, session] of sessions.entries()) {
    const visit: Visit = {
      sessionId: `periods-${n}`,
      pageId,
      audienceId: ids[session.audience] as string,
      pageLinkId: link.body.pageLinkId,
      arm: session.baseline ? 'baseline' : 'personalized',
    };
    const events: SessionEvent[] = [
      { type: 'session_start', at: session.at },
      ...Array.from({ length: session.interactions }, () => ({
        type: 'interaction' as const,
        at: session.at,
      })),
      { type: 'scroll', at: session.at, depth: session.depth },
      { type: 'time', at: session.at, ms: session.ms },
      ...(session.cta ? [{ type: 'cta_click' as const, at: session.at, actionId: 'cta' }] : []),
    ];
    await recordVisit(db, visit, events, session.at);
    if (session.form) await recordFormInSession(db, visit, session.at + MINUTE);
    if (session.later) {
      const at = session.at + session.later.after;
      await recordVisit(db, visit, [{ type: 'time', at, ms: session.later.ms }], at);
    }
  }
  audiences = [...ids].sort().reverse();
  stored = await storedSessions(server.database, pageId);
}, 120_000);
afterAll(async () => {
  await server.close();
  await base.close();
});

type Period = { start: number; end: number };

const expectedItem = (audienceId: string, period: Period) => itemOf(stored, audienceId, period);

/** The lift's per-arm counts and daily series of the first audience, from its sessions. */
function expectedLift(period: Period) {
  const audienceId = audiences.at(-1) as string;
  const mine = stored.filter((session) => session.audience_id === audienceId && within(period)(session));
  const counts = (sessions: StoredSession[], arm: Arm) => {
    const ofArm = sessions.filter((session) => session.arm === arm);
    return { sessions: ofArm.length, conversions: ofArm.filter(converted).length };
  };
  const daily = [];
  for (let day = Math.floor(period.start / DAY); day <= Math.floor((period.end - 1) / DAY); day++) {
    const ofDay = mine.filter((session) => Math.floor(session.started_at / DAY) === day);
    // Each day's always-valid interval is of the period's sessions up to its end.
    const upTo = mine.filter((session) => Math.floor(session.started_at / DAY) <= day);
    const trials = (arm: Arm) => {
      const { sessions, conversions } = counts(upTo, arm);
      return { trials: sessions, successes: conversions };
    };
    daily.push({
      date: new Date(day * DAY).toISOString().slice(0, 10),
      personalized: counts(ofDay, 'personalized'),
      baseline: counts(ofDay, 'baseline'),
      confidenceSequence: confidenceSequence(trials('personalized'), trials('baseline')),
    });
  }
  return {
    audienceId,
    personalized: counts(mine, 'personalized'),
    baseline: counts(mine, 'baseline'),
    daily,
  };
}

const query = ({ start, end }: Period) =>
  `startDate=${new Date(start).toISOString()}&endDate=${new Date(end).toISOString()}`;

async function expectExact(period: Period): Promise<void> {
  const analytics = await api.get(`/v0/pages/${pageId}/analytics/audiences?${query(period)}`);
  expect(analytics.status).toBe(200);
  expect(analytics.body.items).toEqual(audiences.map((audienceId) => expectedItem(audienceId, period)));

  const expected = expectedLift(period);
  const lift = await api.get(
    `/v0/pages/${pageId}/analytics/audiences/${expected.audienceId}/lift?${query(period)}`,
  );
  expect(lift.status).toBe(200);
  expect({
    audienceId: lift.body.audienceId,
    personalized: {
      sessions: lift.body.personalized.sessions,
      conversions: lift.body.personalized.conversions,
    },
    baseline: { sessions: lift.body.baseline.sessions, conversions: lift.body.baseline.conversions },
    daily: lift.body.daily,
  }).toEqual(expected);
}

const at = (iso: string) => Date.parse(iso);

describe('analytics over periods with edges at every granularity', () => {
  it('seeds sessions in every kind of span the endpoints read', () => {
    expect(stored).toHaveLength(sessions.length);
    for (const moment of CROWDED) {
      expect(stored.some((session) => session.started_at === moment)).toBe(true);
      expect(stored.some((session) => session.started_at === moment - 1)).toBe(true);
    }
  });

  it.each<[string, string, string]>([
    ['inside one hour', '2026-02-10T10:07:13.500Z', '2026-02-10T10:48:00Z'],
    ['across one hour boundary, no whole hour', '2026-02-10T09:30:00Z', '2026-02-10T10:15:00Z'],
    ['across midnight, no whole hour', '2026-02-13T23:40:00Z', '2026-02-14T00:20:00Z'],
    [
      'from a millisecond before midnight to one after',
      '2026-02-13T23:59:59.999Z',
      '2026-02-14T00:00:00.001Z',
    ],
    ['whole hours inside a day', '2026-02-10T03:00:00Z', '2026-02-10T17:00:00Z'],
    ['whole hours across midnight', '2026-01-31T20:00:00Z', '2026-02-01T04:00:00Z'],
    ['a whole day', '2026-02-14T00:00:00Z', '2026-02-15T00:00:00Z'],
    ['one calendar month', '2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z'],
    ['whole days spanning months', '2026-01-29T00:00:00Z', '2026-03-02T00:00:00Z'],
    ['mid-hour edges spanning months', '2026-01-28T13:17:45.123Z', '2026-03-02T08:42:10.999Z'],
    ['an hour start to a millisecond before midnight', '2026-01-30T05:00:00Z', '2026-02-03T23:59:59.999Z'],
    ['a millisecond before midnight to a midnight', '2026-01-31T23:59:59.999Z', '2026-02-02T00:00:00Z'],
    ['a midnight to a mid-hour', '2026-02-01T00:00:00Z', '2026-02-10T10:30:00Z'],
    ['every session', '2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z'],
    ['no session', '2025-12-01T00:00:00Z', '2026-01-01T00:00:00Z'],
  ])('is exact %s', async (_label, start, end) => {
    await expectExact({ start: at(start), end: at(end) });
  });

  it('is exact for the one millisecond a session started in, and not the one before', async () => {
    for (const moment of CROWDED) {
      await expectExact({ start: moment, end: moment + 1 });
      await expectExact({ start: moment - 1, end: moment });
    }
  });

  /** An instant in the seeded months, on a millisecond, a minute, an hour, a midnight or a first of the month. */
  const edge = fc
    .tuple(
      fc.integer({ min: FIRST - 2 * DAY, max: LAST + 2 * DAY }),
      fc.constantFrom(1, MINUTE, HOUR, DAY, 'month' as const),
    )
    .map(([moment, unit]) => {
      if (unit !== 'month') return Math.floor(moment / unit) * unit;
      const date = new Date(moment);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    });

  it('is exact for any period between such edges', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(edge, edge).filter(([a, b]) => a !== b),
        async ([a, b]) => expectExact({ start: Math.min(a, b), end: Math.max(a, b) }),
      ),
      { seed: 16, numRuns: 60 },
    );
  });

  it('reads each source once per span for all the audiences of the page, however many', async () => {
    // Whole hours (the running totals) and partial hours on both sides: three spans.
    const period = query({ start: at('2026-01-30T05:30:00Z'), end: at('2026-02-03T22:15:00Z') });
    const statements = async (page: string) => {
      queries.count = 0;
      expect((await api.get(`/v0/pages/${page}/analytics/audiences?${period}`)).status).toBe(200);
      return queries.count;
    };
    const fewer = await statements(pageId);
    const more = (
      await api.post('/v0/pages', {
        name: 'Many',
        pageContext: 'C.',
        brandId: 'b',
        actions: [],
        actionCardWidgets: [],
        scripts: [],
      })
    ).body.pageId;
    for (let i = 0; i < 12; i++) await api.post(`/v0/pages/${more}/audiences`, {});
    expect(await statements(more)).toBe(fewer);
    // The API key, the page, the version of its analytics and its audiences, then the three spans.
    expect(fewer).toBeLessThanOrEqual(4 + 3);
  });

  it('keeps every daily rollup the sum of its hourly ones', async () => {
    const sums = (table: 'audience_hourly_stats' | 'audience_daily_stats', start: 'hour' | 'day') =>
      anyTables(server.database)
        .selectFrom(table)
        .select((eb) => [
          'audience_id',
          'arm',
          eb(eb.ref(start), '-', eb(eb.ref(start), '%', DAY)).as('day'),
          eb.fn.sum('sessions').as('sessions'),
          eb.fn.sum('interactions').as('interactions'),
          eb.fn.sum('scroll_depth_sum').as('scroll_depth_sum'),
          eb.fn.sum('time_spent_ms_sum').as('time_spent_ms_sum'),
          eb.fn.sum('bounces').as('bounces'),
          eb.fn.sum('conversions').as('conversions'),
          eb.fn.sum('cta_sessions').as('cta_sessions'),
          eb.fn.sum('form_submit_sessions').as('form_submit_sessions'),
        ])
        .where('audience_id', 'in', audiences)
        .groupBy(['audience_id', 'arm', 'day'])
        .orderBy(['audience_id', 'arm', 'day'])
        .execute();
    const numbers = (rows: Record<string, unknown>[]) =>
      rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([key, value]) => [
            key,
            key.endsWith('id') || key === 'arm' ? value : Number(value),
          ]),
        ),
      );
    const daily = numbers(await sums('audience_daily_stats', 'day'));
    expect(daily.length).toBeGreaterThan(30);
    expect(daily).toEqual(numbers(await sums('audience_hourly_stats', 'hour')));
  });

  it('keeps every running total the sum of the hourly rollups up to its hour', async () => {
    const hourly = await anyTables(server.database)
      .selectFrom('audience_hourly_stats')
      .select(['audience_id', 'hour', 'sessions', 'interactions', 'time_spent_ms_sum', 'conversions'])
      .where('audience_id', 'in', audiences)
      .orderBy('hour')
      .execute();
    const running = await anyTables(server.database)
      .selectFrom('audience_running_stats')
      .select(['audience_id', 'hour', 'sessions', 'interactions', 'time_spent_ms_sum', 'conversions'])
      .where('audience_id', 'in', audiences)
      .orderBy('audience_id')
      .orderBy('hour')
      .execute();
    const fields = ['sessions', 'interactions', 'time_spent_ms_sum', 'conversions'] as const;
    const expected = audiences
      .flatMap((audienceId) => {
        const mine = hourly.filter((row) => row.audience_id === audienceId);
        const hours = [0, ...new Set(mine.map((row) => Number(row.hour)))];
        return hours.map((hour) => ({
          audience_id: audienceId,
          hour,
          ...Object.fromEntries(
            fields.map((field) => [
              field,
              mine
                .filter((row) => Number(row.hour) <= hour)
                .reduce((sum, row) => sum + Number(row[field]), 0),
            ]),
          ),
        }));
      })
      .sort((a, b) =>
        a.audience_id === b.audience_id ? a.hour - b.hour : a.audience_id < b.audience_id ? -1 : 1,
      );
    expect(running.length).toBeGreaterThan(100);
    expect(
      running.map((row) => ({
        audience_id: row.audience_id,
        hour: Number(row.hour),
        ...Object.fromEntries(fields.map((field) => [field, Number(row[field])])),
      })),
    ).toEqual(expected);
  });

  it('keeps the running totals exact when two writers of one audience commit at once', async () => {
    // SQLite runs one writer at a time; on PostgreSQL a writer starting a later hour must wait for
    // one adding to an earlier hour, or it copies the totals without that change. The later hour is
    // on the next day: writers of one day and arm already wait for each other on the daily row.
    if (server.database.engine === 'sqlite') return;
    const db = anyTables(server.database);
    const audienceId = audiences[0] as string;
    const later = Date.UTC(2027, 0, 1);
    const addSession = (handle: typeof db, hour: number) =>
      handle
        .insertInto('audience_hourly_stats')
        .values({
          tenant_id: api.tenantId,
          audience_id: audienceId,
          hour,
          arm: 'personalized',
          sessions: 1,
          interactions: 0,
          scroll_depth_sum: 0,
          time_spent_ms_sum: 0,
          bounces: 1,
          conversions: 0,
          cta_sessions: 0,
          form_submit_sessions: 0,
        })
        .onConflict((oc) =>
          oc
            .columns(['audience_id', 'hour', 'arm'])
            .doUpdateSet((eb) => ({ sessions: eb('audience_hourly_stats.sessions', '+', 1) })),
        )
        .execute();
    await addSession(db, later);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let added = () => {};
    const first = new Promise<void>((resolve) => {
      added = resolve;
    });
    const earlier = db.transaction().execute(async (trx) => {
      await addSession(trx, later);
      added();
      await held;
    });
    await first;
    const newer = db.transaction().execute((trx) => addSession(trx, later + DAY));
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await Promise.all([earlier, newer]);
    const running = await db
      .selectFrom('audience_running_stats')
      .select(['hour', 'sessions'])
      .where('audience_id', '=', audienceId)
      .where('hour', '>=', later)
      .orderBy('hour')
      .execute();
    const before = stored.filter((session) => session.audience_id === audienceId).length;
    expect(running.map((row) => [Number(row.hour) - later, Number(row.sessions)])).toEqual([
      [0, before + 2],
      [DAY, before + 3],
    ]);
  });
});
