import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liftShare } from '../../src/public/limits.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { type LinkedPage, publishLinkedPage } from '../helpers/pages.ts';
import { type Client, type Response, startServer, type TestServer } from '../helpers/server.ts';

/**
 * What one client address can do to a lift (docs/analytics.md#what-counts-toward-lift): the attack
 * of the red team's second round, replayed as an attacker runs it, and real visitors behind one
 * address. Every request here comes from 127.0.0.1, one address, with the visitor side's limits on
 * as a deployment has them (TAILOR_PUBLIC_VISITORS_PER_HOUR at its default, 30).
 */

const VISITORS_PER_HOUR = 30;

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer({ publicRateLimitRps: 10_000 });
  api = await server.newTenant();
});
afterAll(async () => {
  await server.close();
});

function ok<T extends Response>(response: T, status = 200): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response;
}

let paths = 0;
async function heldPage(holdoutPercent: number): Promise<LinkedPage> {
  const email = `jane.${randomBytes(4).toString('hex')}@globex-retail.example`;
  const person = ok(await api.post('/v0/persons', { name: 'Jane Cooper', email }), 201).body;
  return publishLinkedPage(server, api, {
    audience: { holdoutPercent, personId: person.personId },
    personalize: true,
    path: `/forgery/page-${++paths}`,
  });
}

interface Served {
  arm: Arm;
  token: string;
  /** The visitor id the page's cookie keeps, as a browser would send it back. */
  cookie: string;
}

/** The page as a browser without cookies gets it, or with `cookie`: its arm, token and visitor cookie. */
async function load(page: LinkedPage, cookie?: string): Promise<Served> {
  const response = ok(await server.visitor().get(page.url, cookie ? { headers: { cookie } } : {}));
  const html = response.body as string;
  const set = response.headers.getSetCookie().find((value) => value.startsWith('tailor_vid='));
  return {
    arm: html.match(/data-tailor-arm="([a-z]+)"/)?.[1] as Arm,
    token: html.match(/data-tailor-token="([^"]+)"/)?.[1] as string,
    cookie: (set ?? cookie ?? '').split(';')[0] as string,
  };
}

function report(token: string, sessionId: string, events: object[]) {
  return server.anonymous().post('/v0/public/events', { token, sessionId, events });
}

const started = (converts: boolean) => [
  { type: 'session_start', at: Date.now() },
  ...(converts ? [{ type: 'cta_click', at: Date.now(), actionId: 'demo' }] : []),
];

async function liftOf(page: LinkedPage) {
  return ok(await api.get(`/v0/pages/${page.pageId}/analytics/audiences/${page.audienceId}/lift`)).body;
}

async function totalSessions(page: LinkedPage): Promise<number> {
  return ok(await api.get(`/v0/pages/${page.pageId}/analytics/audiences`)).body.items[0].totalSessions;
}

describe('forged sessions from one address', () => {
  // Each: the holdout, and which arm the attacker reports its i-th session in (the baseline's convert).
  const attacks: { name: string; holdoutPercent: number; arm: (i: number) => Arm }[] = [
    { name: 'alternating arms', holdoutPercent: 10, arm: (i) => (i % 2 === 0 ? 'baseline' : 'personalized') },
    { name: 'every session in the baseline', holdoutPercent: 50, arm: () => 'baseline' },
  ];

  for (const attack of attacks) {
    it(`move each arm of a ${attack.holdoutPercent} % holdout by at most its share of the address's visitors (${attack.name})`, async () => {
      const page = await heldPage(attack.holdoutPercent);
      // Made-up visitors: a new cookie-less load, or a made-up id, until both arms' tokens are had.
      const tokens = new Map<Arm, string>();
      for (let i = 0; tokens.size < 2; i++) {
        const made = i % 2 === 0 ? undefined : `tailor_vid=${randomBytes(16).toString('base64url')}`;
        const served = await load(page, made);
        tokens.set(served.arm, served.token);
      }
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) {
        const arm = attack.arm(i);
        const answer = await report(tokens.get(arm) as string, randomUUID(), started(arm === 'baseline'));
        statuses.push(answer.status);
      }
      // The limit on new sessions per address and audience keeps 30 of them; analytics count them all.
      expect(statuses.filter((status) => status === 200)).toHaveLength(VISITORS_PER_HOUR);
      expect(statuses.filter((status) => status === 429)).toHaveLength(200 - VISITORS_PER_HOUR);
      expect(await totalSessions(page)).toBe(VISITORS_PER_HOUR);

      // The lift counts, per arm, at most what 30 visitors would put in it but once in 1,000 hours.
      const share = (arm: Arm) =>
        liftShare(VISITORS_PER_HOUR, { arm, holdoutPercent: attack.holdoutPercent });
      const reported = (arm: Arm) =>
        statuses.filter((status, i) => status === 200 && attack.arm(i) === arm).length;
      const lift = await liftOf(page);
      for (const arm of ['baseline', 'personalized'] as const) {
        expect(lift[arm].sessions).toBeLessThanOrEqual(share(arm));
        expect(lift[arm].sessions).toBe(Math.min(reported(arm), share(arm)));
        expect(lift[arm].conversions).toBe(arm === 'baseline' ? lift[arm].sessions : 0);
      }
      expect(lift.baseline.sessions).toBeLessThan(reported('baseline'));
    });
  }
});

describe('real visitors behind one address', () => {
  it('count toward lift exactly as they were served and what they did, each tab a session', async () => {
    const page = await heldPage(50);
    const expected = {
      baseline: { sessions: 0, conversions: 0 },
      personalized: { sessions: 0, conversions: 0 },
    };
    for (let i = 0; i < 12; i++) {
      const first = await load(page);
      const sessionId = randomUUID();
      ok(await report(first.token, sessionId, started(i % 3 === 0)));
      // A reload keeps the visitor's arm and the tab's session: nothing new counts.
      const reloaded = await load(page, first.cookie);
      expect(reloaded.arm).toBe(first.arm);
      ok(await report(reloaded.token, sessionId, [{ type: 'time', at: Date.now(), ms: 5_000 }]));
      expected[first.arm].sessions += 1;
      expected[first.arm].conversions += i % 3 === 0 ? 1 : 0;
      if (i % 4 === 0) {
        // Another tab of the same visitor: a session of its own, in the same arm.
        ok(await report(reloaded.token, randomUUID(), started(false)));
        expected[first.arm].sessions += 1;
      }
    }
    const lift = await liftOf(page);
    expect({
      baseline: { sessions: lift.baseline.sessions, conversions: lift.baseline.conversions },
      personalized: { sessions: lift.personalized.sessions, conversions: lift.personalized.conversions },
    }).toEqual(expected);
    expect(await totalSessions(page)).toBe(expected.baseline.sessions + expected.personalized.sessions);
  });
});
