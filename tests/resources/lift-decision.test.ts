import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confidenceSequence, sessionsToDecision } from '../../src/resources/sessions/sequential.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, type Response, startServer, type TestServer } from '../helpers/server.ts';
import { recordSessions } from '../helpers/sessions.ts';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(async () => {
  await server.close();
});

function ok(response: Response, status = 200): Response {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

const DAY = Date.UTC(2026, 0, 1);
const PERIOD = `startDate=${new Date(DAY).toISOString()}&endDate=${new Date(DAY + 86_400_000).toISOString()}`;

let paths = 0;

type Counts = [sessions: number, conversions: number];

/** An audience with a 50 % holdout, no session yet. */
const holdoutSite = () =>
  publishLinkedPage(server, api, {
    audience: { holdoutPercent: 50 },
    personalize: false,
    path: `/lift-decision/${++paths}`,
  });

/** Sessions of one arm at `at`, the first `conversions` of them with a CTA click. */
const record = (site: LinkedPage, arm: Arm, [count, converted]: Counts, at = DAY + 3_600_000) =>
  recordSessions(server, api, site, arm, { count, converted, at });

/** An audience with a 50 % holdout whose arms had these sessions and conversions on DAY. */
async function experiment(personalized: Counts, baseline: Counts): Promise<LinkedPage> {
  const site = await holdoutSite();
  await record(site, 'personalized', personalized);
  await record(site, 'baseline', baseline);
  return site;
}

const liftOf = async (site: LinkedPage, query = '') =>
  ok(
    await api.get(
      `/v0/pages/${site.pageId}/analytics/audiences/${site.audienceId}/lift?${PERIOD}${query ? `&${query}` : ''}`,
    ),
  ).body;

const of = (successes: number, trials: number) => ({ successes, trials });

describe('the lift answer over HTTP: confidence sequence, decision and the wait', () => {
  let close: LinkedPage;
  beforeAll(async () => {
    close = await experiment([200, 30], [200, 24]);
  });

  it('keeps running while the sequence holds zero, and says about how long to wait', async () => {
    const lift = await liftOf(close);
    const expected = confidenceSequence(of(30, 200), of(24, 200), 5000);
    expect(lift.confidenceSequence.lower).toBeCloseTo(expected?.lower as number, 12);
    expect(lift.confidenceSequence.upper).toBeCloseTo(expected?.upper as number, 12);
    expect(lift.confidenceSequence.lower).toBeLessThan(lift.confidenceInterval.lower);
    expect(lift.confidenceSequence.upper).toBeGreaterThan(lift.confidenceInterval.upper);
    expect(lift.decision).toBe('keep_running');
    // A 3-point lift observed, over the 2-point minimum: the wait is for a lift of 3 points.
    expect(lift.sessionsToDecision).toBe(sessionsToDecision(of(30, 200), of(24, 200), 0.02, 5000));
    expect(lift.sessionsToDecision).toBeGreaterThan(0);
  });

  it('takes sequentialTuning and minimumLift from the query', async () => {
    const lift = await liftOf(close, 'sequentialTuning=100&minimumLift=0.1');
    const expected = confidenceSequence(of(30, 200), of(24, 200), 100);
    expect(lift.confidenceSequence.lower).toBeCloseTo(expected?.lower as number, 12);
    expect(lift.sessionsToDecision).toBe(sessionsToDecision(of(30, 200), of(24, 200), 0.1, 100));
    const wide = await liftOf(close, 'sequentialTuning=10000000');
    expect(wide.confidenceSequence.lower).toBeLessThan(lift.confidenceSequence.lower);
  });

  it('declares personalization the winner once the sequence is above zero, and the baseline once below', async () => {
    const wins = await liftOf(await experiment([200, 60], [200, 10]));
    expect(wins.confidenceSequence.lower).toBeGreaterThan(0);
    expect(wins.decision).toBe('personalized_wins');
    expect(wins.sessionsToDecision).toBeNull();
    expect(wins.enoughData).toBe(true);
    const loses = await liftOf(await experiment([200, 10], [200, 60]));
    expect(loses.confidenceSequence.upper).toBeLessThan(0);
    expect(loses.decision).toBe('baseline_wins');
    expect(loses.sessionsToDecision).toBeNull();
  });

  it('has no sequence at all (null, not an object of nulls) while neither arm varies, and keeps running', async () => {
    for (const [personalized, baseline] of [
      [
        [20, 0],
        [20, 0],
      ],
      [
        [20, 20],
        [5, 5],
      ],
    ] as [Counts, Counts][]) {
      const lift = await liftOf(await experiment(personalized, baseline));
      expect(lift.confidenceInterval.lower).toEqual(expect.any(Number));
      expect(lift.confidenceSequence).toBeNull();
      expect(lift.decision).toBe('keep_running');
      expect(lift.sessionsToDecision).toBeNull();
      expect(lift.daily[0].confidenceSequence).toBeNull();
    }
  });

  it('has no sequence while an arm is empty, however much the other has', async () => {
    const site = await holdoutSite();
    await record(site, 'personalized', [300, 40]);
    const lift = await liftOf(site);
    expect(lift).toMatchObject({
      confidenceSequence: null,
      decision: 'keep_running',
      sessionsToDecision: null,
      enoughData: false,
    });
    expect(lift.daily[0].confidenceSequence).toBeNull();
  });

  it("answers the issue's 5 against 1 session with intervals within [−1, 1] and a wait no shorter than enoughData's", async () => {
    // 1 of 5 against 1 of 1: a lift of −80 points whose raw always-valid bounds are −5.31 and +3.71.
    const lift = await liftOf(await experiment([5, 1], [1, 1]));
    expect(lift.absoluteLift).toBeCloseTo(-0.8, 12);
    expect(lift.confidenceSequence).toEqual({ lower: -1, upper: 1 });
    expect(lift.confidenceInterval.lower).toBeGreaterThanOrEqual(-1);
    expect(lift.confidenceInterval.upper).toBeLessThanOrEqual(1);
    expect(lift.decision).toBe('keep_running');
    expect(lift.enoughData).toBe(false);
    // The sequence alone would ask for about 29 more; enoughData still needs 95 + 99.
    expect(sessionsToDecision(of(1, 5), of(1, 1), 0.02, 5000)).toBeLessThan(95 + 99);
    expect(lift.sessionsToDecision).toBe(95 + 99);
  });

  it('waits as the sequence says once that is longer than what enoughData still needs, and 0 once a lift of minimumLift would show', async () => {
    // 120/40 against 90/25: the baseline is 10 sessions short, yet the sequence asks for more.
    const long = await liftOf(await experiment([120, 40], [90, 25]));
    expect(long.decision).toBe('keep_running');
    const sequenceWait = sessionsToDecision(of(40, 120), of(25, 90), 0.02, 5000) as number;
    expect(sequenceWait).toBeGreaterThan(10);
    expect(long.sessionsToDecision).toBe(sequenceWait);
    // With enough data and a lift the sequence would already have shown, the wait is 0.
    const flat = await liftOf(await experiment([200, 20], [200, 21]), 'minimumLift=0.2');
    expect(flat).toMatchObject({ enoughData: true, decision: 'keep_running', sessionsToDecision: 0 });
  });

  it("gives each day the sequence of the sessions up to its end, narrowing day by day, with the request's tuning", async () => {
    const site = await holdoutSite();
    // Day 1 only the personalized arm; then 60 sessions a day in each arm at 20 % and 10 %.
    await record(site, 'personalized', [30, 6]);
    for (let day = 1; day < 5; day++) {
      const at = DAY + day * 86_400_000 + 3_600_000;
      await record(site, 'personalized', [60, 12], at);
      await record(site, 'baseline', [60, 6], at);
    }
    const period = `startDate=${new Date(DAY).toISOString()}&endDate=${new Date(DAY + 5 * 86_400_000).toISOString()}`;
    const lift = ok(
      await api.get(`/v0/pages/${site.pageId}/analytics/audiences/${site.audienceId}/lift?${period}`),
    ).body;
    const sequences = lift.daily.map((day: { confidenceSequence: unknown }) => day.confidenceSequence);
    expect(sequences[0]).toBeNull();
    for (let day = 1; day < 5; day++) {
      expect(sequences[day]).toEqual(
        confidenceSequence(of(6 + 12 * day, 30 + 60 * day), of(6 * day, 60 * day)),
      );
      if (day > 1)
        expect(sequences[day].upper - sequences[day].lower).toBeLessThan(
          sequences[day - 1].upper - sequences[day - 1].lower,
        );
    }
    expect(sequences[4]).toEqual(lift.confidenceSequence);
    const tuned = ok(
      await api.get(
        `/v0/pages/${site.pageId}/analytics/audiences/${site.audienceId}/lift?${period}&sequentialTuning=100`,
      ),
    ).body;
    expect(tuned.daily[2].confidenceSequence).toEqual(confidenceSequence(of(30, 150), of(12, 120), 100));
  });

  it.each([
    ['sequentialTuning=99', '/querystring/sequentialTuning'],
    ['sequentialTuning=10000001', '/querystring/sequentialTuning'],
    ['sequentialTuning=5000.5', '/querystring/sequentialTuning'],
    ['sequentialTuning=many', '/querystring/sequentialTuning'],
    ['sequentialTuning=', '/querystring/sequentialTuning'],
    ['minimumLift=0', '/querystring/minimumLift'],
    ['minimumLift=0.0009', '/querystring/minimumLift'],
    ['minimumLift=1.5', '/querystring/minimumLift'],
    ['minimumLift=-0.02', '/querystring/minimumLift'],
    ['minimumLift=two', '/querystring/minimumLift'],
  ])('refuses %s with 400 naming the field', async (query, path) => {
    const response = await api.get(
      `/v0/pages/${close.pageId}/analytics/audiences/${close.audienceId}/lift?${query}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
  });

  it('accepts both ends of the ranges', async () => {
    await liftOf(close, 'sequentialTuning=100&minimumLift=0.001');
    await liftOf(close, 'sequentialTuning=10000000&minimumLift=1');
  });
});
