import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
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
  it('sends the RateLimit headers on every answer', async () => {
    const api = await (await server({ rateLimitRps: 50 })).newTenant();
    const response = await api.get('/v0/persons');
    expect(response.headers.get('ratelimit-limit')).toBe('50');
    expect(Number(response.headers.get('ratelimit-remaining'))).toBe(49);
    expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
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
