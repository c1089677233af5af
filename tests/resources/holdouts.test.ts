import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/resources/api-keys/service.ts';
import type { SessionEvent } from '../../src/resources/sessions/schema.ts';
import { confidenceSequence, DEFAULT_SEQUENTIAL_TUNING } from '../../src/resources/sessions/sequential.ts';
import { chanceToBeat, chiSquarePValue, newcombeInterval } from '../../src/resources/sessions/statistics.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { escapeHtml } from '../../src/shared/html.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { type LinkedPage, publishLinkedPage, SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, type Response, startServer, type TestServer } from '../helpers/server.ts';
import { recordSessions } from '../helpers/sessions.ts';

let server: TestServer;
let api: Client;
let visitor: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  visitor = server.visitor();
});
afterAll(async () => {
  await server.close();
});

function ok<T extends Response>(response: T, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

function expectProblem(response: Response, status: number, code: string, path?: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body.code).toBe(code);
  if (path) expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
}

async function newPage(client = api): Promise<string> {
  const { pageId } = ok(await client.post('/v0/pages', SAMPLE_PAGE), 201).body;
  ok(await client.post(`/v0/pages/${pageId}/publish`));
  return pageId;
}

type Site = LinkedPage;

let paths = 0;

/**
 * A published page, an audience with `holdoutPercent`, and a link to it. `personalize` generates
 * version 1 and publishes it; otherwise version 0 stays published.
 */
async function site(holdoutPercent: number, { personalize = true } = {}): Promise<Site> {
  // An audience for a person at a company, so that version 1 reads differently from the baseline.
  const email = `jane.${randomBytes(4).toString('hex')}@globex-retail.example`;
  const person = ok(await api.post('/v0/persons', { name: 'Jane Cooper', email }), 201).body;
  return publishLinkedPage(server, api, {
    audience: { holdoutPercent, personId: person.personId },
    personalize,
    path: `/holdout/page-${++paths}`,
  });
}

/** A well-formed visitor id, as the server makes them. */
const visitorId = () => randomBytes(16).toString('base64url');

interface Served {
  arm: Arm;
  token: string;
  html: string;
  /** The Set-Cookie header of tailor_vid, when the answer set one. */
  cookie: string | undefined;
}

async function serve(url: string, cookie?: string): Promise<Served> {
  const response = ok(await visitor.get(url, cookie ? { headers: { cookie } } : {}));
  const html = response.body as string;
  return {
    arm: html.match(/data-tailor-arm="([a-z]+)"/)?.[1] as Arm,
    token: html.match(/data-tailor-token="([^"]+)"/)?.[1] as string,
    html,
    cookie: response.headers.getSetCookie().find((value) => value.startsWith('tailor_vid=')),
  };
}

const armOfVisitor = async (url: string, id: string) => (await serve(url, `tailor_vid=${id}`)).arm;

async function versionOf(s: Site, versionNumber: number) {
  const versions = ok(await api.get(`/v0/pages/${s.pageId}/audiences/${s.audienceId}/versions`)).body;
  return versions.items.find((version: { versionNumber: number }) => version.versionNumber === versionNumber);
}

const versionContent = async (s: Site, versionNumber: number) => (await versionOf(s, versionNumber)).content;

/** A page of `s` as served in each arm, to visitors of new ids until both arms have come. */
async function servedInEachArm(s: Site): Promise<Map<Arm, Served>> {
  const byArm = new Map<Arm, Served>();
  while (byArm.size < 2) {
    const served = await serve(s.url, `tailor_vid=${visitorId()}`);
    byArm.set(served.arm, served);
  }
  return byArm;
}

describe('holdoutPercent on audiences', () => {
  it('is 0 unless set, is set on create and by PATCH, and is returned wherever the audience is', async () => {
    const pageId = await newPage();
    const plain = ok(await api.post(`/v0/pages/${pageId}/audiences`, {}), 201).body;
    expect(plain.holdoutPercent).toBe(0);
    const held = ok(await api.post(`/v0/pages/${pageId}/audiences`, { holdoutPercent: 25 }), 201).body;
    expect(held.holdoutPercent).toBe(25);
    const url = `/v0/pages/${pageId}/audiences/${held.audienceId}`;
    expect(ok(await api.get(url)).body.holdoutPercent).toBe(25);
    expect(ok(await api.patch(url, { holdoutPercent: 50 })).body.holdoutPercent).toBe(50);
    expect(ok(await api.patch(url, { customName: 'Renamed' })).body.holdoutPercent).toBe(50);
    expect(ok(await api.patch(url, { holdoutPercent: 0 })).body.holdoutPercent).toBe(0);
    const listed = ok(await api.get(`/v0/pages/${pageId}/audiences`)).body.items;
    expect(listed.map((audience: { holdoutPercent: number }) => audience.holdoutPercent).sort()).toEqual([
      0, 0,
    ]);
  });

  const refused: [string, unknown][] = [
    ['-1', -1],
    ['51', 51],
    ['100', 100],
    ['a fraction', 12.5],
    ['a string', '10'],
    ['null', null],
    ['a boolean', true],
  ];

  it.each(refused)('refuses %s on create with 400, creating nothing', async (_label, holdoutPercent) => {
    const pageId = await newPage();
    const response = await api.post(`/v0/pages/${pageId}/audiences`, { holdoutPercent });
    expectProblem(response, 400, 'validation_failed', '/body/holdoutPercent');
    expect(ok(await api.get(`/v0/pages/${pageId}/audiences`)).body.items).toEqual([]);
  });

  it.each(refused)('refuses %s on PATCH with 400, changing nothing', async (_label, holdoutPercent) => {
    const pageId = await newPage();
    const audience = ok(await api.post(`/v0/pages/${pageId}/audiences`, { holdoutPercent: 10 }), 201).body;
    const url = `/v0/pages/${pageId}/audiences/${audience.audienceId}`;
    expectProblem(await api.patch(url, { holdoutPercent }), 400, 'validation_failed', '/body/holdoutPercent');
    expect(ok(await api.get(url)).body).toEqual(audience);
  });

  it("cannot be changed on another tenant's audience", async () => {
    const pageId = await newPage();
    const audience = ok(await api.post(`/v0/pages/${pageId}/audiences`, { holdoutPercent: 10 }), 201).body;
    const other = await server.newTenant();
    const url = `/v0/pages/${pageId}/audiences/${audience.audienceId}`;
    expectProblem(await other.patch(url, { holdoutPercent: 50 }), 404, 'not_found');
    expect(ok(await api.get(url)).body.holdoutPercent).toBe(10);
  });
});

describe('a public page with a holdout', () => {
  let held: Site;

  beforeAll(async () => {
    held = await site(50);
  });

  it('keeps a visitor id in a first-party cookie for the tenant’s pages, out of reach of scripts', async () => {
    const served = await serve(held.url);
    expect(served.cookie).toMatch(
      new RegExp(
        `^tailor_vid=[A-Za-z0-9_-]{22}; Max-Age=31536000; Path=/p/${held.slug}; HttpOnly; SameSite=Lax$`,
      ),
    );
  });

  it('serves a returning visitor the same arm every time, and keeps its id', async () => {
    for (let i = 0; i < 6; i++) {
      const id = visitorId();
      const first = await serve(held.url, `tailor_vid=${id}`);
      for (let visit = 0; visit < 4; visit++) {
        const again = await serve(held.url, `tailor_vid=${id}`);
        expect(again.arm).toBe(first.arm);
        expect(again.cookie).toMatch(new RegExp(`^tailor_vid=${id};`));
      }
    }
  });

  it('serves the baseline (version 0) to its share and the published version to the rest', async () => {
    const [baseline, personalized] = [await versionContent(held, 0), await versionContent(held, 1)];
    expect(baseline.headline).not.toBe(personalized.headline);
    const arms: Arm[] = [];
    for (let i = 0; i < 200; i++) {
      const served = await serve(held.url, `tailor_vid=${visitorId()}`);
      const [shown, other] = served.arm === 'baseline' ? [baseline, personalized] : [personalized, baseline];
      expect(served.html).toContain(`<h1>${escapeHtml(shown.headline)}</h1>`);
      expect(served.html).not.toContain(`<h1>${escapeHtml(other.headline)}</h1>`);
      arms.push(served.arm);
    }
    // 200 visitors at 50 %: the baseline's count is Binomial(200, 0.5); 60-140 is beyond 5.6 sd.
    const baselineCount = arms.filter((arm) => arm === 'baseline').length;
    expect(baselineCount).toBeGreaterThan(60);
    expect(baselineCount).toBeLessThan(140);
  });

  it('gives a visitor whose cookie is not a visitor id a new one', async () => {
    for (const sent of ['short', 'a'.repeat(23), '', 'has space in it 0123456', 'a'.repeat(21)]) {
      const served = await serve(held.url, `other=1; tailor_vid=${encodeURIComponent(sent)}`);
      const kept = served.cookie?.match(/^tailor_vid=([A-Za-z0-9_-]{22});/)?.[1];
      expect(kept).toBeDefined();
      expect(kept).not.toBe(sent);
    }
  });

  it('moves only the visitors at the edge of the split when the share changes', async () => {
    const s = await site(20);
    const audienceUrl = `/v0/pages/${s.pageId}/audiences/${s.audienceId}`;
    const ids = Array.from({ length: 150 }, visitorId);
    const armsAt = async (percent: number) => {
      ok(await api.patch(audienceUrl, { holdoutPercent: percent }));
      return Promise.all(ids.map((id) => armOfVisitor(s.url, id)));
    };
    const at20 = await armsAt(20);
    const at40 = await armsAt(40);
    const back = await armsAt(20);
    ids.forEach((_id, i) => {
      // Raising the share only moves personalized visitors to the baseline…
      if (at20[i] === 'baseline') expect(at40[i]).toBe('baseline');
      // …and lowering it back moves exactly them back.
      expect(back[i]).toBe(at20[i]);
    });
    const count = (arms: Arm[]) => arms.filter((arm) => arm === 'baseline').length;
    expect(count(at40)).toBeGreaterThan(count(at20));
  });

  it('serves every visitor the published version, with no cookie, without a holdout', async () => {
    const s = await site(0);
    for (let i = 0; i < 10; i++) {
      const served = await serve(s.url, i % 2 ? `tailor_vid=${visitorId()}` : undefined);
      expect(served.arm).toBe('personalized');
      expect(served.cookie).toBeUndefined();
    }
  });

  it('serves every visitor version 0, counted as personalized, while version 0 is the published one', async () => {
    const s = await site(50, { personalize: false });
    const baseline = await versionContent(s, 0);
    for (let i = 0; i < 10; i++) {
      const served = await serve(s.url, `tailor_vid=${visitorId()}`);
      expect(served.arm).toBe('personalized');
      expect(served.cookie).toBeUndefined();
      expect(served.html).toContain(`<h1>${escapeHtml(baseline.headline)}</h1>`);
    }
  });

  it("records each session in the arm its page was served in, and counts it in the contract's analytics", async () => {
    const s = await site(50);
    const byArm = await servedInEachArm(s);
    const report = async (token: string, events: Partial<SessionEvent>[]) =>
      ok(
        await visitor.post('/v0/public/events', {
          token,
          sessionId: `holdout-${randomBytes(6).toString('hex')}`,
          events: events.map((event) => ({ at: Date.now(), ...event })),
        }),
      );
    const baselineToken = byArm.get('baseline')?.token as string;
    const personalizedToken = byArm.get('personalized')?.token as string;
    await report(baselineToken, [{ type: 'session_start' }, { type: 'cta_click', actionId: 'demo' }]);
    await report(baselineToken, [{ type: 'session_start' }]);
    await report(personalizedToken, [{ type: 'session_start' }, { type: 'cta_click', actionId: 'demo' }]);
    // A form sent from the baseline page, in a session of its own: a conversion of the baseline.
    ok(
      await visitor.post('/v0/public/forms', {
        token: baselineToken,
        sessionId: `holdout-${randomBytes(6).toString('hex')}`,
        email: 'ada@globex.example',
        fields: { name: 'Ada' },
      }),
      201,
    );

    const lift = ok(await api.get(`/v0/pages/${s.pageId}/analytics/audiences/${s.audienceId}/lift`)).body;
    expect(lift.personalized).toEqual({ sessions: 1, conversions: 1, conversionRate: 1 });
    expect(lift.baseline).toEqual({ sessions: 3, conversions: 2, conversionRate: 2 / 3 });
    const analytics = ok(await api.get(`/v0/pages/${s.pageId}/analytics/audiences`)).body.items[0];
    expect(analytics).toMatchObject({ totalSessions: 4, conversionCount: 3 });
  });
});

describe('the arm and version of a lead', () => {
  const versionId = async (s: Site, versionNumber: number) => (await versionOf(s, versionNumber)).versionId;

  async function leadFrom(served: Served) {
    const sent = ok(
      await visitor.post('/v0/public/forms', {
        token: served.token,
        email: 'ada@globex.example',
        fields: { name: 'Ada' },
      }),
      201,
    );
    return ok(await api.get(`/v0/form_submissions/${sent.body.formSubmissionId}`)).body;
  }

  it('says baseline and version 0 for a visitor held out, personalized and the published version for the rest, in the list as in the lead', async () => {
    const s = await site(50);
    const byArm = await servedInEachArm(s);
    const held = await leadFrom(byArm.get('baseline') as Served);
    expect(held).toMatchObject({ arm: 'baseline', versionId: await versionId(s, 0) });
    const shown = await leadFrom(byArm.get('personalized') as Served);
    expect(shown).toMatchObject({ arm: 'personalized', versionId: await versionId(s, 1) });
    const listed = ok(await api.get(`/v0/form_submissions?audienceId=${s.audienceId}`)).body.items;
    expect(listed).toEqual([shown, held]);
  });

  it('follows a new published version: a page loaded after the publish names it', async () => {
    const s = await site(0);
    const first = await serve(s.url);
    ok(await api.post(`/v0/pages/${s.pageId}/audiences/${s.audienceId}/versions`), 201);
    await server.worker().drain();
    ok(await api.post(`/v0/pages/${s.pageId}/audiences/${s.audienceId}/publish`));
    const second = await serve(s.url);
    expect(await leadFrom(first)).toMatchObject({ arm: 'personalized', versionId: await versionId(s, 1) });
    expect(await leadFrom(second)).toMatchObject({ arm: 'personalized', versionId: await versionId(s, 2) });
  });

  it('says version 0, personalized, while version 0 is the published one', async () => {
    const s = await site(50, { personalize: false });
    const lead = await leadFrom(await serve(s.url, `tailor_vid=${visitorId()}`));
    expect(lead).toMatchObject({ arm: 'personalized', versionId: await versionId(s, 0) });
  });
});

describe('GET /v0/pages/{page_id}/analytics/audiences/{audience_id}/lift', () => {
  const HOUR = 3_600_000;
  const day1 = Date.UTC(2026, 0, 1);
  const day2 = day1 + 24 * HOUR;
  const day3 = day2 + 24 * HOUR;

  /** The query of the period [from, to), in RFC 3339. */
  const between = (from: number, to: number) =>
    `startDate=${new Date(from).toISOString()}&endDate=${new Date(to).toISOString()}`;

  const liftUrl = (s: Site, query = '') =>
    `/v0/pages/${s.pageId}/analytics/audiences/${s.audienceId}/lift${query ? `?${query}` : ''}`;

  /** Records `count` sessions of one arm at `at`, of which `converted` have a CTA click. */
  const sessions = (s: Site, arm: Arm, at: number, count: number, converted: number) =>
    recordSessions(server, api, s, arm, { count, converted, at });

  it('answers every figure as its formula says, from sessions in whole and partial hours', async () => {
    const s = await site(50);
    // The period: day 1 00:30 to day 3 12:30. Sessions just outside it must not count.
    const period = `startDate=%2B${day1 + HOUR / 2}&endDate=${new Date(day3 + 12.5 * HOUR).toISOString()}`;
    await sessions(s, 'personalized', day1 + HOUR / 6, 7, 7); // 00:10, before the start
    await sessions(s, 'personalized', day1 + 40 * 60_000, 20, 5); // 00:40, the partial first hour
    await sessions(s, 'baseline', day1 + 40 * 60_000, 10, 1);
    await sessions(s, 'personalized', day1 + 5 * HOUR, 40, 10); // whole hours
    await sessions(s, 'baseline', day2 + 9 * HOUR, 50, 6);
    await sessions(s, 'personalized', day2 + 23.9 * HOUR, 40, 10);
    await sessions(s, 'personalized', day3 + 12 * HOUR + 10 * 60_000, 20, 5); // 12:10, the partial last hour
    await sessions(s, 'baseline', day3 + 12 * HOUR + 10 * 60_000, 40, 5);
    await sessions(s, 'baseline', day3 + 12 * HOUR + 40 * 60_000, 9, 9); // 12:40, after the end

    const lift = ok(await api.get(liftUrl(s, period))).body;
    const personalized = { sessions: 120, conversions: 30 };
    const baseline = { sessions: 100, conversions: 12 };
    expect(lift).toMatchObject({
      audienceId: s.audienceId,
      holdoutPercent: 50,
      personalized: { ...personalized, conversionRate: 0.25 },
      baseline: { ...baseline, conversionRate: 0.12 },
      enoughData: true,
    });
    expect(lift.absoluteLift).toBeCloseTo(0.13, 12);
    expect(lift.relativeLift).toBeCloseTo(0.13 / 0.12, 12);
    const trials = (arm: typeof personalized) => ({ trials: arm.sessions, successes: arm.conversions });
    const interval = newcombeInterval(trials(personalized), trials(baseline));
    expect(lift.confidenceInterval.lower).toBeCloseTo(interval.lower, 12);
    expect(lift.confidenceInterval.upper).toBeCloseTo(interval.upper, 12);
    expect(lift.confidenceInterval.lower).toBeGreaterThan(0);
    expect(lift.chanceToBeatBaseline).toBeCloseTo(chanceToBeat(trials(personalized), trials(baseline)), 12);
    expect(lift.chanceToBeatBaseline).toBeGreaterThan(0.99);
    // (120 − 110)² / 110 · 2 = 1.818…, one degree of freedom.
    expect(lift.srm.pValue).toBeCloseTo(chiSquarePValue([120, 100], [0.5, 0.5]), 12);
    expect(lift.srm.pValue).toBeCloseTo(0.17752, 4);
    expect(lift.srm.mismatch).toBe(false);
    // Each day's always-valid interval is the one of the sessions up to its end.
    const upTo = (p: [number, number], b: [number, number]) =>
      confidenceSequence(
        { trials: p[0], successes: p[1] },
        { trials: b[0], successes: b[1] },
        DEFAULT_SEQUENTIAL_TUNING,
      );
    expect(lift.daily).toEqual([
      {
        date: '2026-01-01',
        personalized: { sessions: 60, conversions: 15 },
        baseline: { sessions: 10, conversions: 1 },
        confidenceSequence: upTo([60, 15], [10, 1]),
      },
      {
        date: '2026-01-02',
        personalized: { sessions: 40, conversions: 10 },
        baseline: { sessions: 50, conversions: 6 },
        confidenceSequence: upTo([100, 25], [60, 7]),
      },
      {
        date: '2026-01-03',
        personalized: { sessions: 20, conversions: 5 },
        baseline: { sessions: 40, conversions: 5 },
        confidenceSequence: upTo([120, 30], [100, 12]),
      },
    ]);
    expect(lift.daily.at(-1).confidenceSequence).toEqual(lift.confidenceSequence);
  });

  it('answers null for what needs both arms, and no srm, while an arm is empty or there is no holdout', async () => {
    const s = await site(0);
    const period = between(day1, day3);
    const empty = ok(await api.get(liftUrl(s, period))).body;
    expect(empty).toEqual({
      audienceId: s.audienceId,
      holdoutPercent: 0,
      personalized: { sessions: 0, conversions: 0, conversionRate: null },
      baseline: { sessions: 0, conversions: 0, conversionRate: null },
      absoluteLift: null,
      relativeLift: null,
      confidenceInterval: { lower: null, upper: null },
      confidenceSequence: null,
      decision: 'keep_running',
      sessionsToDecision: null,
      chanceToBeatBaseline: null,
      srm: { pValue: null, mismatch: false },
      enoughData: false,
      daily: [
        {
          date: '2026-01-01',
          personalized: { sessions: 0, conversions: 0 },
          baseline: { sessions: 0, conversions: 0 },
          confidenceSequence: null,
        },
        {
          date: '2026-01-02',
          personalized: { sessions: 0, conversions: 0 },
          baseline: { sessions: 0, conversions: 0 },
          confidenceSequence: null,
        },
      ],
    });
    await sessions(s, 'personalized', day1 + HOUR, 5, 2);
    const oneArm = ok(await api.get(liftUrl(s, period))).body;
    expect(oneArm.personalized).toEqual({ sessions: 5, conversions: 2, conversionRate: 0.4 });
    expect(oneArm).toMatchObject({
      absoluteLift: null,
      confidenceInterval: { lower: null, upper: null },
      confidenceSequence: null,
      decision: 'keep_running',
      sessionsToDecision: null,
      chanceToBeatBaseline: null,
      srm: { pValue: null, mismatch: false },
    });
    expect(oneArm.daily.map((day: { confidenceSequence: unknown }) => day.confidenceSequence)).toEqual([
      null,
      null,
    ]);
  });

  it('has no relative lift while the baseline converted none, and the rest all the same', async () => {
    const s = await site(50);
    const period = between(day1, day2);
    await sessions(s, 'personalized', day1 + HOUR, 10, 3);
    await sessions(s, 'baseline', day1 + HOUR, 10, 0);
    const lift = ok(await api.get(liftUrl(s, period))).body;
    expect(lift.absoluteLift).toBeCloseTo(0.3, 12);
    expect(lift.relativeLift).toBeNull();
    expect(lift.confidenceInterval.lower).toEqual(expect.any(Number));
    expect(lift.chanceToBeatBaseline).toEqual(expect.any(Number));
    expect(lift.srm.pValue).toBe(1);
    expect(lift.enoughData).toBe(false);
  });

  it('says there is not enough data while an arm has under 100 sessions or under 10 conversions', async () => {
    const s = await site(50);
    await sessions(s, 'personalized', day1 + HOUR, 100, 10);
    await sessions(s, 'baseline', day1 + HOUR, 99, 10);
    expect(ok(await api.get(liftUrl(s, between(day1, day2)))).body.enoughData).toBe(false);
    await sessions(s, 'baseline', day2 + HOUR, 1, 0);
    expect(ok(await api.get(liftUrl(s, between(day1, day3)))).body.enoughData).toBe(true);
    await sessions(s, 'baseline', day3 + HOUR, 200, 0);
    await sessions(s, 'personalized', day3 + HOUR, 1, 0);
    // The baseline has 300 sessions but its 10 conversions came on day 1: the personalized arm has 101.
    const lift = ok(await api.get(liftUrl(s, between(day1, day3 + 24 * HOUR)))).body;
    expect(lift.enoughData).toBe(true);
    expect(lift.srm.mismatch).toBe(true);
  });

  it('flags a split that does not match the holdout as a sample-ratio mismatch', async () => {
    const s = await site(10);
    const period = between(day1, day2);
    await sessions(s, 'personalized', day1 + HOUR, 100, 10);
    await sessions(s, 'baseline', day1 + HOUR, 100, 10);
    const lift = ok(await api.get(liftUrl(s, period))).body;
    // Expected 180 and 20: (100−180)²/180 + (100−20)²/20 = 355.6.
    expect(lift.srm.pValue).toBeLessThan(1e-12);
    expect(lift.srm.mismatch).toBe(true);
  });

  it('covers the 30 days before now by default', async () => {
    const s = await site(50);
    const lift = ok(await api.get(liftUrl(s))).body;
    expect(lift.daily.length).toBeGreaterThanOrEqual(30);
    expect(lift.daily.length).toBeLessThanOrEqual(31);
    expect(lift.daily.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
  });

  it.each([
    ['startDate equal to endDate', 'startDate=2026-01-01T00:00:00Z&endDate=2026-01-01T00:00:00Z'],
    ['a span over 366 days', 'startDate=2024-01-01T00:00:00Z&endDate=2025-01-02T00:00:01Z'],
    ['a date that is not a date-time', 'startDate=yesterday'],
    ['a day the month does not have', 'endDate=2026-02-30T00:00:00Z'],
  ])('refuses %s with 400', async (_label, query) => {
    const s = await site(50, { personalize: false });
    expectProblem(await api.get(liftUrl(s, query)), 400, 'validation_failed');
  });

  it('is not found for an unknown page or audience, an audience of another page, or another tenant', async () => {
    const s = await site(50, { personalize: false });
    const other = await site(50, { personalize: false });
    const lift = (pageId: string, audienceId: string, client = api) =>
      client.get(`/v0/pages/${pageId}/analytics/audiences/${audienceId}/lift`);
    expectProblem(await lift('page_00000000000000000000000000', s.audienceId), 404, 'not_found');
    expectProblem(await lift(s.pageId, 'audience_00000000000000000000000000'), 404, 'not_found');
    expectProblem(await lift(s.pageId, other.audienceId), 404, 'not_found');
    const stranger = await server.newTenant();
    expectProblem(await lift(s.pageId, s.audienceId, stranger), 404, 'not_found');
    ok(await lift(s.pageId, s.audienceId));
  });

  it('needs an API key, and a read-only key may read it', async () => {
    const s = await site(50, { personalize: false });
    expectProblem(await api.as(undefined).get(liftUrl(s)), 401, 'missing_api_key');
    const { apiKey } = await issueKey(anyTables(server.database), api.tenantId, { readOnly: true });
    expect(ok(await api.as(apiKey).get(liftUrl(s))).body.audienceId).toBe(s.audienceId);
  });
});
