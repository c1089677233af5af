import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { Client, startServer, type TestServer } from '../helpers/server.ts';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers.reverse()) await server.close();
});

async function server(options: Parameters<typeof startServer>[0]) {
  const started = await startServer(options);
  servers.push(started);
  return started;
}

describe('rate limits per API key', () => {
  it('sends the RateLimit headers on every answer, counting the burst', async () => {
    const api = await (await server({ rateLimitRps: 50 })).newTenant();
    const response = await api.get('/v0/persons');
    expect(response.headers.get('ratelimit-limit')).toBe('100');
    expect(Number(response.headers.get('ratelimit-remaining'))).toBe(99);
    expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
  });

  it('counts down RateLimit-Remaining to 0 exactly when the burst is spent', async () => {
    const api = await (await server({ rateLimitRps: 3 })).newTenant();
    const remaining = [];
    for (let i = 0; i < 7; i++) {
      const response = await api.get('/v0/persons');
      remaining.push([response.status, response.headers.get('ratelimit-remaining')]);
    }
    expect(remaining).toEqual([
      [200, '5'],
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });

  it('allows a burst of twice the rate, then 429 rate_limited with Retry-After', async () => {
    const running = await server({ rateLimitRps: 5 });
    const api = await running.newTenant();
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await api.get('/v0/persons')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const limited = await api.get('/v0/persons');
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    const other = await running.newTenant();
    expect((await other.get('/v0/persons')).status).toBe(200);
  });

  it('is off at 0', async () => {
    const api = await (await server({ rateLimitRps: 0 })).newTenant();
    const response = await api.get('/v0/persons');
    expect(response.headers.get('ratelimit-limit')).toBeNull();
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('is shared by every node through Redis', async () => {
    const redis = new Redis(process.env.TEST_REDIS_URL as string);
    try {
      const first = await server({ rateLimitRps: 3, redis });
      const second = await server({ rateLimitRps: 3, redis, database: first.database });
      const api = await first.newTenant();
      const onSecond = new Client(second.url, api.apiKey, api.tenantId);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await api.get('/v0/persons')).status);
      for (let i = 0; i < 3; i++) statuses.push((await onSecond.get('/v0/persons')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('failed authentication per client IP', () => {
  it('limits failed attempts to the rate and burst, with RateLimit headers on every 401', async () => {
    const running = await server({ authFailureRps: 2 });
    const guesser = running.anonymous();
    const answers = [];
    for (let i = 0; i < 10; i++) {
      const response = await guesser.as(`tk_guess_${i}`).get('/v0/persons');
      answers.push([response.status, response.headers.get('ratelimit-remaining')]);
    }
    expect(answers.slice(0, 8)).toEqual([
      [401, '7'],
      [401, '6'],
      [401, '5'],
      [401, '4'],
      [401, '3'],
      [401, '2'],
      [401, '1'],
      [401, '0'],
    ]);
    expect(answers.slice(8).map(([status]) => status)).toEqual([429, 429]);
    const limited = await guesser.get('/v0/persons');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-limit')).toBe('8');
  });

  it('never refuses a valid key while its address floods wrong keys (issue 21 finding 7)', async () => {
    const running = await server({ authFailureRps: 5 });
    const api = await running.newTenant();
    const until = Date.now() + 2_000;
    const flood = async () => {
      const statuses: number[] = [];
      while (Date.now() < until) statuses.push((await api.as('tlr_wrong').get('/v0/persons')).status);
      return statuses;
    };
    const work = async () => {
      const statuses: number[] = [];
      while (Date.now() < until) {
        statuses.push((await api.get('/v0/persons')).status);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return statuses;
    };
    const [valid, ...floods] = await Promise.all([work(), flood(), flood(), flood()]);
    const wrong = floods.flat();
    expect(wrong.filter((status) => status === 429).length).toBeGreaterThan(wrong.length / 2);
    expect(new Set(wrong)).toEqual(new Set([401, 429]));
    expect(valid.length).toBeGreaterThan(10);
    expect(valid.filter((status) => status !== 200)).toEqual([]);
  });

  it('keeps refusing the blocked address 429 for wrong and missing keys, and recovers', async () => {
    const running = await server({ authFailureRps: 1 });
    const api = await running.newTenant();
    for (let i = 0; i < 4; i++) expect((await api.as('tk_wrong').get('/v0/persons')).status).toBe(401);
    expect((await api.as('tk_wrong').get('/v0/persons')).status).toBe(429);
    expect((await api.as(undefined).get('/v0/persons')).status).toBe(429);
    expect((await api.get('/v0/persons')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await api.as('tk_wrong').get('/v0/persons')).status).toBe(401);
  });

  it('does not count successful requests', async () => {
    const running = await server({ authFailureRps: 1 });
    const api = await running.newTenant();
    for (let i = 0; i < 10; i++) expect((await api.get('/v0/persons')).status).toBe(200);
    const failed = await api.as('tk_wrong').get('/v0/persons');
    expect(failed.status).toBe(401);
    expect(failed.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('reads TAILOR_AUTH_FAILURE_RPS, 5 per second by default', () => {
    expect(loadConfig({}).authFailureRps).toBe(5);
    expect(loadConfig({ TAILOR_AUTH_FAILURE_RPS: '0' }).authFailureRps).toBe(0);
  });
});

describe('client addresses behind reverse proxies (TAILOR_TRUST_PROXY)', () => {
  /** Remaining failed-authentication budget of the address that sends `forwardedFor`, after one more failure. */
  async function failOnce(api: Client, forwardedFor: string) {
    const response = await api.as('tk_wrong').get('/v0/persons', {
      headers: { 'x-forwarded-for': forwardedFor },
    });
    return [response.status, response.headers.get('ratelimit-remaining')];
  }

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const api = await (await server({ authFailureRps: 1 })).newTenant();
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await failOnce(api, `203.0.113.${i}`));
    expect(answers).toEqual([
      [401, '3'],
      [401, '2'],
      [401, '1'],
      [401, '0'],
      [429, '0'],
    ]);
  });

  it('gives each client behind a trusted proxy a budget of its own, which a forged hop cannot change', async () => {
    const api = await (
      await server({ authFailureRps: 1, trustProxy: ['127.0.0.1', '10.0.0.0/8'] })
    ).newTenant();
    const first = [];
    for (let i = 0; i < 5; i++) first.push(await failOnce(api, '203.0.113.1'));
    expect(first.map(([status]) => status)).toEqual([401, 401, 401, 401, 429]);
    // The client sent its own X-Forwarded-For; the proxy appended the address it saw.
    expect(await failOnce(api, '198.51.100.7, 203.0.113.1')).toEqual([429, '0']);
    expect(await failOnce(api, '198.51.100.7, 203.0.113.1, 10.1.2.3')).toEqual([429, '0']);
    expect(await failOnce(api, '203.0.113.2')).toEqual([401, '3']);
    expect(await failOnce(api, '203.0.113.1, 10.1.2.3, 10.9.9.9')).toEqual([429, '0']);
  });

  it('limits the public side per client behind a trusted proxy', async () => {
    const running = await server({ publicRateLimitRps: 1, trustProxy: ['127.0.0.1'] });
    const send = async (forwardedFor: string) =>
      (
        await running
          .anonymous()
          .request('POST', '/v0/public/events', { body: {}, headers: { 'x-forwarded-for': forwardedFor } })
      ).status;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await send('203.0.113.1'));
    expect(statuses).toEqual([400, 400, 429]);
    expect(await send('203.0.113.2')).toBe(400);
  });
});
