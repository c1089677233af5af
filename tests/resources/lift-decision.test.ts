import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/resources/sessions/schema.ts';
import { confidenceSequence, sessionsToDecision } from '../../src/resources/sessions/sequential.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { recordVisit } from '../../src/workflows/visits/service.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, type Response, startServer, type TestServer } from '../helpers/server.ts';

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

/** An audience with a 50 % holdout whose arms had these sessions and conversions on DAY. */
async function experiment(
  personalized: [sessions: number, conversions: number],
  baseline: [sessions: number, conversions: number],
): Promise<LinkedPage> {
  const site = await publishLinkedPage(server, api, {
    audience: { holdoutPercent: 50 },
    personalize: false,
    path: `/lift-decision/${++paths}`,
  });
  const db = server.database.forTenant(api.tenantId);
  const at = DAY + 3_600_000;
  const session = (arm: Arm, converts: boolean) => {
    const events: SessionEvent[] = [{ type: 'session_start', at }];
    if (converts) events.push({ type: 'cta_click', at, actionId: 'demo' });
    const visit = {
      sessionId: `decide-${randomBytes(8).toString('hex')}`,
      pageId: site.pageId,
      audienceId: site.audienceId,
      pageLinkId: site.pageLinkId,
      arm,
    };
    return recordVisit(db, visit, events, at);
  };
  // A few dozen at a time: one at a time is slow on PostgreSQL, all at once crowds its pool.
  const record = async (arm: Arm, [sessions, conversions]: [number, number]) => {
    for (let from = 0; from < sessions; from += 25) {
      const batch = Array.from({ length: Math.min(25, sessions - from) }, (_, i) => from + i);
      await Promise.all(batch.map((i) => session(arm, i < conversions)));
    }
  };
  await record('personalized', personalized);
  await record('baseline', baseline);
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
    const loses = await liftOf(await experiment([200, 10], [200, 60]));
    expect(loses.confidenceSequence.upper).toBeLessThan(0);
    expect(loses.decision).toBe('baseline_wins');
    expect(loses.sessionsToDecision).toBeNull();
  });

  it('has no sequence while neither arm varies, and keeps running', async () => {
    const lift = await liftOf(await experiment([20, 0], [20, 0]));
    expect(lift.confidenceInterval.lower).toEqual(expect.any(Number));
    expect(lift.confidenceSequence).toEqual({ lower: null, upper: null });
    expect(lift.decision).toBe('keep_running');
    expect(lift.sessionsToDecision).toBeNull();
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
