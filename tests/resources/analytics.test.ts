import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantDb } from '../../src/db/tenant-db.ts';
import { issueToken } from '../../src/public/token.ts';
import { AudienceAnalytics } from '../../src/resources/sessions/schema.ts';
import type { Visit } from '../../src/resources/sessions/service.ts';
import { Signer } from '../../src/shared/signing.ts';
import { recordFormInSession, recordVisit } from '../../src/workflows/visits/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { trackedPage } from '../helpers/pages.ts';
import { expectSchema } from '../helpers/schema.ts';
import { type Client, startServer, TEST_SECRET, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let api: Client;
const signer = new Signer(TEST_SECRET);

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

interface Setup {
  pageId: string;
  audiences: string[];
  linkId: string;
  token: string;
  db: TenantDb;
}

let counter = 0;
async function setup(client = api, audiences = 2, personId?: string): Promise<Setup> {
  const bodies = Array.from({ length: audiences }, (_, i) => (i === 0 && personId ? { personId } : {}));
  const page = await trackedPage(client, { path: `/tracked-${++counter}`, audiences: bodies });
  return {
    pageId: page.pageId,
    audiences: page.audienceIds,
    linkId: page.pageLinkId,
    token: page.token,
    db: server.database.forTenant(client.tenantId),
  };
}

const send = (body: unknown, contentType = 'application/json') =>
  api.request('POST', '/v0/public/events', {
    raw: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': contentType },
  });

let sessionCounter = 0;
const sessionId = () => `session-${Date.now()}-${++sessionCounter}`;

async function storedSessions(audienceId: string) {
  return anyTables(server.database)
    .selectFrom('sessions')
    .selectAll()
    .where('audience_id', '=', audienceId)
    .execute();
}

describe('POST /v0/public/events', () => {
  it('records a batch sent as JSON or as sendBeacon text, with no API key and open CORS', async () => {
    const { token, audiences } = await setup();
    const id = sessionId();
    const first = await server.anonymous().request('POST', '/v0/public/events', {
      raw: JSON.stringify({
        token,
        sessionId: id,
        events: [
          { type: 'session_start', at: Date.now() },
          { type: 'scroll', at: Date.now(), depth: 40 },
        ],
      }),
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://elsewhere.example' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ accepted: 2 });
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    await send({
      token,
      sessionId: id,
      events: [
        { type: 'interaction', at: Date.now() },
        { type: 'time', at: Date.now(), ms: 4000 },
      ],
    });
    const [session] = await storedSessions(audiences[0] as string);
    expect(session).toMatchObject({
      id,
      interactions: 1,
      max_scroll_depth: 40,
      time_spent_ms: 4000,
      cta_clicks: 0,
    });
  });

  it('answers a CORS preflight', async () => {
    const response = await fetch(`${server.url}/v0/public/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each([
    [
      'a forged token',
      (s: Setup) => ({
        token: `${s.token.split('.')[0]}.forged`,
        sessionId: sessionId(),
        events: [{ type: 'session_start', at: 1 }],
      }),
    ],
    [
      'an altered token',
      (s: Setup) => ({
        token: `x${s.token}`,
        sessionId: sessionId(),
        events: [{ type: 'session_start', at: 1 }],
      }),
    ],
    [
      'an expired token',
      (s: Setup) => ({
        token: issueToken(signer, {
          tenantId: api.tenantId,
          pageId: s.pageId,
          audienceId: s.audiences[0] as string,
          pageLinkId: s.linkId,
          arm: 'personalized',
          expiresAt: Date.now() - 1,
        }),
        sessionId: sessionId(),
        events: [{ type: 'session_start', at: 1 }],
      }),
    ],
    [
      'an unknown event type',
      (s: Setup) => ({ token: s.token, sessionId: sessionId(), events: [{ type: 'hover', at: 1 }] }),
    ],
    [
      'a scroll depth over 100',
      (s: Setup) => ({
        token: s.token,
        sessionId: sessionId(),
        events: [{ type: 'scroll', at: 1, depth: 101 }],
      }),
    ],
    [
      'more than 50 events',
      (s: Setup) => ({
        token: s.token,
        sessionId: sessionId(),
        events: Array(51).fill({ type: 'interaction', at: 1 }),
      }),
    ],
    ['no events', (s: Setup) => ({ token: s.token, sessionId: sessionId(), events: [] })],
    [
      'a malformed session id',
      (s: Setup) => ({ token: s.token, sessionId: 'x', events: [{ type: 'session_start', at: 1 }] }),
    ],
    [
      'an unknown field',
      (s: Setup) => ({
        token: s.token,
        sessionId: sessionId(),
        events: [{ type: 'session_start', at: 1 }],
        extra: 1,
      }),
    ],
  ])('rejects %s with 400 and stores nothing', async (_label, body) => {
    const s = await setup();
    const response = await send(body(s));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(await storedSessions(s.audiences[0] as string)).toEqual([]);
  });

  it('rejects a body over 64 KiB with 413', async () => {
    const s = await setup();
    const response = await send(
      `{"token":"${s.token}","sessionId":"${sessionId()}","events":[],"pad":"${'x'.repeat(70_000)}"}`,
      'text/plain',
    );
    expect(response.status).toBe(413);
  });

  it('limits requests per client IP', async () => {
    const limited = await startServer({ publicRateLimitRps: 1 });
    try {
      const visitor = limited.anonymous();
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await visitor.request('POST', '/v0/public/events', { body: {} })).status);
      expect(statuses).toEqual([400, 400, 429]);
      const limitedAnswer = await visitor.request('POST', '/v0/public/events', { body: {} });
      expect(limitedAnswer.body.code).toBe('rate_limited');
      expect(Number(limitedAnswer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });

  it('caps a session at what one visit can produce: 4 hours and 10,000 interactions, in analytics too', async () => {
    const { token, audiences, pageId } = await setup();
    const id = sessionId();
    const hour = 3_600_000;
    // The attack: one batch of 50 hours of `time`, then interactions far beyond a visit's.
    const hours = await send({
      token,
      sessionId: id,
      events: Array(50).fill({ type: 'time', at: 1, ms: hour }),
    });
    expect(hours.status, JSON.stringify(hours.body)).toBe(200);
    const visit = {
      sessionId: id,
      pageId,
      audienceId: audiences[0] as string,
      pageLinkId: '',
      arm: 'personalized' as const,
    };
    const db = server.database.forTenant(api.tenantId);
    for (let i = 0; i < 201; i++)
      await recordVisit(db, visit, Array(50).fill({ type: 'interaction', at: 1 }));
    const [session] = await storedSessions(audiences[0] as string);
    expect(session).toMatchObject({ time_spent_ms: 4 * hour, interactions: 10_000 });

    const { items } = (await api.get(`/v0/pages/${pageId}/analytics/audiences`)).body;
    const item = items.find((each: { audienceId: string }) => each.audienceId === audiences[0]);
    expect(item).toMatchObject({
      totalSessions: 1,
      avgTimeSpentSeconds: 4 * 3600,
      avgInteractionsPerSession: 10_000,
    });
    const hourly = await anyTables(server.database)
      .selectFrom('audience_hourly_stats')
      .select(['time_spent_ms_sum', 'interactions'])
      .where('audience_id', '=', audiences[0] as string)
      .execute();
    expect(hourly.map((row) => [Number(row.time_spent_ms_sum), Number(row.interactions)])).toEqual([
      [4 * hour, 10_000],
    ]);
  });

  it('a session of a person moves their account’s latest activity', async () => {
    const person = (
      await api.post('/v0/persons', { name: 'Visitor', email: 'visitor@sessions-activity.example' })
    ).body;
    const s = await setup(api, 1, person.personId);
    await send({
      token: s.token,
      sessionId: sessionId(),
      events: [{ type: 'session_start', at: Date.now() }],
    });
    const account = (await api.get('/v0/accounts/search?query=sessions-activity')).body.items[0];
    expect(account.latestActivityAt).toMatch(/^\+\d+$/);
  });

  it('moves the person’s latest activity with every batch of their sessions, never back', async () => {
    const person = (
      await api.post('/v0/persons', { name: 'Returning', email: 'returning@sessions-activity.example' })
    ).body;
    const s = await setup(api, 1, person.personId);
    const visit = {
      sessionId: sessionId(),
      pageId: s.pageId,
      audienceId: s.audiences[0] as string,
      pageLinkId: s.linkId,
      arm: 'personalized' as const,
    };
    const latest = async () => {
      const row = await anyTables(server.database)
        .selectFrom('persons')
        .select('latest_activity_at')
        .where('id', '=', person.personId)
        .executeTakeFirstOrThrow();
      return Number(row.latest_activity_at);
    };
    const base = Date.now() - 60_000;
    await recordVisit(s.db, visit, [{ type: 'session_start', at: 0 }], base);
    expect(await latest()).toBe(base);
    await recordVisit(s.db, visit, [{ type: 'interaction', at: 0 }], base + 1_000);
    expect(await latest()).toBe(base + 1_000);
    // A batch whose session is there already, though it says it starts one.
    await recordVisit(s.db, visit, [{ type: 'session_start', at: 0 }], base + 2_000);
    expect(await latest()).toBe(base + 2_000);
    // A clock behind: the session takes it, the person keeps the later instant.
    await recordVisit(s.db, visit, [{ type: 'interaction', at: 0 }], base + 500);
    expect(await latest()).toBe(base + 2_000);
    const [session] = await storedSessions(visit.audienceId);
    expect(session).toMatchObject({ interactions: 2, started_at: base });
  });

  it.each([
    ['a batch that starts its session', 'session_start'],
    ['a later batch', 'interaction'],
  ])('refuses %s on a page that no longer exists with 400, and stores nothing', async (_, type) => {
    const s = await setup(api, 1);
    await anyTables(server.database).deleteFrom('pages').where('id', '=', s.pageId).execute();
    const response = await send({ token: s.token, sessionId: sessionId(), events: [{ type, at: 1 }] });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: '/body/token', message: 'names a page that no longer exists' },
    ]);
    expect(await storedSessions(s.audiences[0] as string)).toEqual([]);
  });
});

describe('GET /v0/pages/{id}/analytics/audiences', () => {
  const HOUR = 3_600_000;
  const base = Date.UTC(2026, 0, 10, 10, 0, 0);

  /** Four sessions of one audience with hand-countable metrics, placed at chosen moments. */
  async function seed(s: Setup) {
    const visit = (id: string): Visit => ({
      sessionId: id,
      pageId: s.pageId,
      audienceId: s.audiences[0] as string,
      pageLinkId: s.linkId,
      arm: 'personalized',
    });
    const [a, b, c, d] = [sessionId(), sessionId(), sessionId(), sessionId()];
    // a: engaged, clicked the CTA: 2 interactions, 80% scroll, 15 s.
    await recordVisit(
      s.db,
      visit(a),
      [
        { type: 'session_start', at: 0 },
        { type: 'interaction', at: 0 },
        { type: 'interaction', at: 0 },
        { type: 'scroll', at: 0, depth: 80 },
        { type: 'cta_click', at: 0, actionId: 'cta' },
        { type: 'time', at: 0, ms: 15_000 },
      ],
      base + 30 * 60_000,
    );
    // b: a bounce: nothing but 10% scroll and 3 s.
    await recordVisit(
      s.db,
      visit(b),
      [
        { type: 'scroll', at: 0, depth: 10 },
        { type: 'time', at: 0, ms: 3_000 },
      ],
      base + HOUR + 15 * 60_000,
    );
    // c: no action, but 12 s: not a bounce, no conversion.
    await recordVisit(s.db, visit(c), [{ type: 'time', at: 0, ms: 7_000 }], base + 2 * HOUR + 45 * 60_000);
    await recordVisit(s.db, visit(c), [{ type: 'time', at: 0, ms: 5_000 }], base + 2 * HOUR + 46 * 60_000);
    // d: a form submission, no other event.
    await recordFormInSession(s.db, visit(d), base + 2 * HOUR + 50 * 60_000);
  }

  const period = (from: number, to: number) =>
    `startDate=${new Date(from).toISOString()}&endDate=${new Date(to).toISOString()}`;

  it('computes every metric as defined, one item per audience, zeros without sessions', async () => {
    const s = await setup();
    await seed(s);
    const response = await api.get(
      `/v0/pages/${s.pageId}/analytics/audiences?${period(base, base + 3 * HOUR)}`,
    );
    expect(response.status).toBe(200);
    expectSchema(AudienceAnalytics, response.body);
    expect(response.body.items).toHaveLength(2);
    const [second, first] = response.body.items;
    expect(first).toEqual({
      audienceId: s.audiences[0],
      totalSessions: 4,
      avgInteractionsPerSession: 0.5,
      avgScrollDepthPercentage: 22.5,
      avgTimeSpentSeconds: 7.5,
      bounceRate: 0.25,
      conversionRate: 0.5,
      formSubmitRate: 0.25,
      bounceCount: 1,
      bounceEligibleSessions: 4,
      conversionCount: 2,
      ctaSessions: 1,
      formSubmitCount: 1,
    });
    expect(second).toMatchObject({
      audienceId: s.audiences[1],
      totalSessions: 0,
      bounceRate: 0,
      avgTimeSpentSeconds: 0,
    });
  });

  it('counts the sessions that started in [startDate, endDate), also across partial hours', async () => {
    const s = await setup();
    await seed(s);
    const totals = async (from: number, to: number) =>
      (await api.get(`/v0/pages/${s.pageId}/analytics/audiences?${period(from, to)}`)).body.items.find(
        (item: { audienceId: string }) => item.audienceId === s.audiences[0],
      );
    expect((await totals(base + 31 * 60_000, base + 3 * HOUR)).totalSessions).toBe(3);
    expect((await totals(base + 30 * 60_000, base + 2 * HOUR + 50 * 60_000)).totalSessions).toBe(3);
    expect((await totals(base + 20 * 60_000, base + 40 * 60_000)).totalSessions).toBe(1);
    const c = await totals(base + 2 * HOUR, base + 2 * HOUR + 48 * 60_000);
    expect(c).toMatchObject({ totalSessions: 1, avgTimeSpentSeconds: 12, bounceRate: 0, conversionRate: 0 });
    expect((await totals(base - HOUR, base)).totalSessions).toBe(0);
    expect(
      (
        await api.get(
          `/v0/pages/${s.pageId}/analytics/audiences?startDate=%2B${base}&endDate=%2B${base + 3 * HOUR}`,
        )
      ).body.items[1].totalSessions,
    ).toBe(4);
  });

  it('answers from the hourly rollups', async () => {
    const s = await setup();
    await seed(s);
    const hours = await anyTables(server.database)
      .selectFrom('audience_hourly_stats')
      .select(['hour', 'sessions', 'bounces'])
      .where('audience_id', '=', s.audiences[0] as string)
      .orderBy('hour')
      .execute();
    expect(hours.map((row) => [Number(row.hour) - base, Number(row.sessions), Number(row.bounces)])).toEqual([
      [0, 1, 0],
      [HOUR, 1, 1],
      [2 * HOUR, 2, 0],
    ]);
  });

  it('defaults to the 30 days before now', async () => {
    const s = await setup();
    await send({
      token: s.token,
      sessionId: sessionId(),
      events: [{ type: 'session_start', at: Date.now() }],
    });
    await seed(s);
    const items = (await api.get(`/v0/pages/${s.pageId}/analytics/audiences`)).body.items;
    expect(
      items.find((item: { audienceId: string }) => item.audienceId === s.audiences[0]).totalSessions,
    ).toBe(1);
  });

  it.each([
    ['startDate after endDate', 'startDate=2026-02-01T00:00:00Z&endDate=2026-01-01T00:00:00Z'],
    ['startDate equal to endDate', 'startDate=2026-01-01T00:00:00Z&endDate=2026-01-01T00:00:00Z'],
    ['a span over 366 days', 'startDate=2024-01-01T00:00:00Z&endDate=2025-01-02T00:00:01Z'],
    ['a date that is not a date-time', 'startDate=yesterday'],
    // Found while building the fuzz suite: Date.parse reads these as March 1 and the next midnight.
    ['a day the month does not have', 'startDate=2026-02-01T00:00:00Z&endDate=2026-02-30T00:00:00Z'],
    ['February 29 of a common year', 'startDate=2026-01-01T00:00:00Z&endDate=2026-02-29T00:00:00Z'],
    ['hour 24', 'startDate=2026-01-01T00:00:00Z&endDate=2026-01-02T24:00:00Z'],
  ])('rejects %s with 400', async (_label, query) => {
    const s = await setup(api, 1);
    const response = await api.get(`/v0/pages/${s.pageId}/analytics/audiences?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
  });

  it('is 404 for an unknown page and another tenant’s page', async () => {
    const s = await setup(api, 1);
    expect((await api.get('/v0/pages/page_00000000000000000000000000/analytics/audiences')).status).toBe(404);
    const other = await server.newTenant();
    expect((await other.get(`/v0/pages/${s.pageId}/analytics/audiences`)).status).toBe(404);
  });

  it('includes archived audiences', async () => {
    const s = await setup(api, 1);
    const page = s.pageId;
    await api.delete(`/v0/pages/${page}/audiences/${s.audiences[0]}`);
    const items = (await api.get(`/v0/pages/${page}/analytics/audiences`)).body.items;
    expect(items.map((item: { audienceId: string }) => item.audienceId)).toEqual([s.audiences[0]]);
  });
});
