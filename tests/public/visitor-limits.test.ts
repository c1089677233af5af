import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { clientKey } from '../../src/http/client-address.ts';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { Signer } from '../../src/shared/signing.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { publishLinkedPage } from '../helpers/pages.ts';
import {
  type Client,
  type Response,
  type ServerOptions,
  startServer,
  TEST_SECRET,
  type TestServer,
} from '../helpers/server.ts';

/**
 * The limits of anonymous writes (docs/analytics.md#limits, docs/forms.md): what one client address
 * or one page view may start or submit. Every request here comes from 127.0.0.1, as one address.
 */

const signer = new Signer(TEST_SECRET);
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** A server with the visitor side's limits on; the request rate per address is high enough to stay out of the way. */
async function limitedServer(options: ServerOptions = {}): Promise<TestServer> {
  const server = await startServer({ publicRateLimitRps: 10_000, ...options });
  servers.push(server);
  return server;
}

interface Site {
  server: TestServer;
  api: Client;
  tenantId: string;
  pageId: string;
  audienceId: string;
  pageLinkId: string;
}

let paths = 0;
async function site(server: TestServer, holdoutPercent = 0): Promise<Site> {
  const api = await server.newTenant();
  const page = await publishLinkedPage(server, api, {
    audience: { holdoutPercent },
    personalize: holdoutPercent > 0,
    path: `/limits/page-${++paths}`,
  });
  return { server, api, tenantId: api.tenantId, ...page };
}

let views = 0;
/** A token of the page in `arm`, as a page would carry it (each a different one, as after a rebuild). */
function pageView(s: Site, arm: Arm = 'personalized'): string {
  return issueToken(signer, { ...s, arm, expiresAt: Date.now() + TOKEN_VALID_MS + ++views });
}

function report(
  s: Site,
  token: string,
  sessionId: string,
  events: unknown[] = [{ type: 'session_start', at: Date.now() }],
) {
  return s.server.anonymous().post('/v0/public/events', { token, sessionId, events });
}

function submit(s: Site, token: string, body: Record<string, unknown> = {}) {
  return s.server
    .anonymous()
    .post('/v0/public/forms', { token, fields: { email: 'lead@acme.example' }, ...body });
}

async function storedCount(s: Site, table: 'sessions' | 'form_submissions'): Promise<number> {
  const row = await anyTables(s.server.database)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', s.tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function formEventCount(s: Site): Promise<number> {
  const row = await anyTables(s.server.database)
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', s.tenantId)
    .where('type', '=', 'form.submitted')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A 429 rate_limited as every limit answers it: problem+json, Retry-After and the RateLimit headers. */
function expectRefused(response: Response, limit: number): void {
  expect(response.status, JSON.stringify(response.body)).toBe(429);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body.code).toBe('rate_limited');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(response.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
}

describe('new sessions per client address and audience', () => {
  it('one address cannot forge a lift: of 200 sessions from fresh page views of both arms, 30 count', async () => {
    const s = await site(await limitedServer(), 50);
    const answers: Response[] = [];
    for (let i = 0; i < 200; i++) {
      // The attack: reload until either arm comes up, then report a session in it; the baseline's convert.
      const arm: Arm = i % 2 === 0 ? 'baseline' : 'personalized';
      const events: unknown[] = [{ type: 'session_start', at: Date.now() }];
      if (arm === 'baseline') events.push({ type: 'cta_click', at: Date.now(), actionId: 'demo' });
      answers.push(await report(s, pageView(s, arm), randomUUID(), events));
    }
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(200));
    for (const refused of answers.slice(30)) expectRefused(refused, 30);
    expect(await storedCount(s, 'sessions')).toBe(30);

    const lift = await s.api.get(`/v0/pages/${s.pageId}/analytics/audiences/${s.audienceId}/lift`);
    expect(lift.status, JSON.stringify(lift.body)).toBe(200);
    expect(lift.body.personalized.sessions + lift.body.baseline.sessions).toBe(30);
    expect(lift.body.enoughData).toBe(false);
  });

  it("counts a company's visitors behind one address up to TAILOR_PUBLIC_VISITORS_PER_HOUR, each audience apart", async () => {
    const server = await limitedServer({ publicVisitorsPerHour: 5 });
    const [first, second] = [await site(server), await site(server)] as [Site, Site];
    const visits = Array.from({ length: 6 }, () => ({ token: pageView(first), sessionId: randomUUID() }));
    const statuses = [];
    for (const visit of visits) statuses.push((await report(first, visit.token, visit.sessionId)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Sessions already started go on reporting, and a reload (a new page view) keeps its session.
    const later = [{ type: 'time', at: Date.now(), ms: 5_000 }];
    const started = visits[0] as { token: string; sessionId: string };
    expect((await report(first, started.token, started.sessionId, later)).status).toBe(200);
    expect((await report(first, pageView(first), started.sessionId, later)).status).toBe(200);
    // Another audience's page, from the same address, has its own count.
    expect((await report(second, pageView(second), randomUUID())).status).toBe(200);
    expect(await storedCount(first, 'sessions')).toBe(5);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('is shared by every node through Redis', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL as string);
    try {
      const first = await limitedServer({ redis, publicVisitorsPerHour: 3 });
      const second = await limitedServer({ redis, publicVisitorsPerHour: 3, database: first.database });
      const s = await site(first);
      const onSecond = { ...s, server: second };
      const statuses = [];
      for (const node of [s, onSecond, s, onSecond]) {
        statuses.push((await report(node, pageView(node), randomUUID())).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      redis.disconnect();
    }
  });

  it('TAILOR_PUBLIC_VISITORS_PER_HOUR=0 lifts the limit per address', async () => {
    const s = await site(await limitedServer({ publicVisitorsPerHour: 0 }));
    for (let i = 0; i < 40; i++) expect((await report(s, pageView(s), randomUUID())).status).toBe(200);
    expect(await storedCount(s, 'sessions')).toBe(40);
  });
});

describe('client addresses', () => {
  it('counts an IPv6 client as its /64, which it may send from any address of, and an IPv4-mapped one as IPv4', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:ffff:1:2:3'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('203.0.113.7')).not.toBe(clientKey('203.0.113.8'));
  });

  it('gives an IPv6 client one request budget however many addresses of its /64 it sends from', async () => {
    const server = await limitedServer({ publicRateLimitRps: 1, trustProxy: ['127.0.0.1'] });
    const from = (address: string) =>
      server.visitor().get('/v0/public/tracker.js', { headers: { 'x-forwarded-for': address } });
    const statuses = [];
    for (let i = 1; i <= 4; i++) statuses.push((await from(`2001:db8:1:2::${i}`)).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.slice(2)).toEqual([429, 429]);
    expect((await from('2001:db8:1:3::1')).status).toBe(200);
  });
});

describe('what one visit (its token and session) may write', () => {
  it('is not escaped by a suffix on its token: a token of more than two parts is no token', async () => {
    const s = await site(await limitedServer());
    const token = pageView(s);
    for (const suffix of ['.1', '.2', '.']) {
      const events = await report(s, `${token}${suffix}`, randomUUID());
      expect(events.status).toBe(400);
      expect(events.body.errors[0].path).toBe('/body/token');
      expect((await submit(s, `${token}${suffix}`)).status).toBe(400);
    }
    expect(await storedCount(s, 'sessions')).toBe(0);
    expect(await storedCount(s, 'form_submissions')).toBe(0);
  });

  it('starts as many sessions as its visitors behind one address may: a token is every visitor’s of its link', async () => {
    const s = await site(await limitedServer({ publicVisitorsPerHour: 3 }));
    const token = pageView(s);
    const sessions = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const answers = [];
    for (const sessionId of sessions) answers.push(await report(s, token, sessionId));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expectRefused(answers[3] as Response, 3);
    expect(await storedCount(s, 'sessions')).toBe(3);
    const known = sessions[0] as string;
    expect((await report(s, token, known, [{ type: 'interaction', at: Date.now() }])).status).toBe(200);
  });

  it("sends the tracker's batches, and refuses a flood of one session: about one a second after a burst of 10", async () => {
    const s = await site(await limitedServer());
    const token = pageView(s);
    const sessionId = randomUUID();
    const started = Date.now();
    const statuses = [];
    for (let i = 0; i < 40; i++) {
      statuses.push((await report(s, token, sessionId, [{ type: 'interaction', at: Date.now() }])).status);
    }
    const seconds = Math.ceil((Date.now() - started) / 1000);
    const accepted = statuses.filter((status) => status === 200).length;
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    // The steady second's one in each second touched, and the burst's 9 again every 10 s.
    expect(accepted).toBeLessThanOrEqual(10 + seconds + 9 * Math.floor(seconds / 10));
    expect(statuses.filter((status) => status === 429).length).toBe(40 - accepted);
    const [session] = await anyTables(s.server.database)
      .selectFrom('sessions')
      .select('interactions')
      .where('id', '=', sessionId)
      .execute();
    expect(session?.interactions).toBe(accepted);
  });
});

describe('form submissions', () => {
  it('one visit submits at most 3 forms: 200 with one token from one address store 3, and nothing of the rest', async () => {
    const s = await site(await limitedServer());
    const token = pageView(s);
    const fields = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`field${i}`, '😀'.repeat(1_000)]),
    );
    const answers = [];
    for (let i = 0; i < 200; i++) answers.push(await submit(s, token, { fields }));
    expect(answers.slice(0, 3).map((answer) => answer.status)).toEqual([201, 201, 201]);
    for (const refused of answers.slice(3)) expectRefused(refused, 3);
    expect(await storedCount(s, 'form_submissions')).toBe(3);
    expect(await formEventCount(s)).toBe(3);
  });

  it('one address submits at most TAILOR_PUBLIC_VISITORS_PER_HOUR forms an hour, whatever the tokens', async () => {
    const server = await limitedServer({ publicVisitorsPerHour: 4 });
    const [first, second] = [await site(server), await site(server)] as [Site, Site];
    const statuses = [];
    for (const s of [first, first, second, second, first])
      statuses.push((await submit(s, pageView(s))).status);
    expect(statuses).toEqual([201, 201, 201, 201, 429]);
    expectRefused(await submit(second, pageView(second)), 4);
    expect(
      (await storedCount(first, 'form_submissions')) + (await storedCount(second, 'form_submissions')),
    ).toBe(4);
  });

  it('a form that would start a session beyond the limits is stored, and not counted in analytics', async () => {
    const s = await site(await limitedServer({ publicVisitorsPerHour: 3 }));
    const token = pageView(s);
    const first = randomUUID();
    expect((await report(s, token, first)).status).toBe(200);
    const sessionIds = [randomUUID(), randomUUID(), randomUUID()];
    for (const sessionId of sessionIds) {
      expect((await submit(s, token, { sessionId })).status).toBe(201);
    }
    expect(await storedCount(s, 'form_submissions')).toBe(3);
    const stored = await anyTables(s.server.database)
      .selectFrom('sessions')
      .select('id')
      .where('tenant_id', '=', s.tenantId)
      .execute();
    expect(stored.map((row) => row.id).sort()).toEqual([first, ...sessionIds.slice(0, 2)].sort());
  });
});
