import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import {
  BurstyRateLimiter,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { AppError } from '../shared/errors.ts';

/** How far past the steady rate a client may go for a short while, and how long that allowance takes to come back. */
const BURST_WINDOW_SECONDS = 10;

export interface RateLimitOptions {
  /** Requests per second; 0 turns the limit off. */
  perSecond: number;
  /** Names the counters, so that separate limits never share them. */
  name: string;
  /** When given, counters live in Redis and every node shares them. */
  redis?: Redis;
}

export interface RateLimit {
  /** Counts one request for `key` and sets the RateLimit headers; throws rate_limited past the limit. */
  take(key: string, reply: FastifyReply): Promise<void>;
}

function limiter(
  options: RateLimitOptions,
  suffix: string,
  points: number,
  duration: number,
): RateLimiterAbstract {
  const keyPrefix = `tailor:rl:${options.name}:${suffix}`;
  if (!options.redis) return new RateLimiterMemory({ keyPrefix, points, duration });
  return new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix,
    points,
    duration,
    // While Redis is unreachable each node keeps counting on its own rather than failing requests.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
  });
}

function setHeaders(reply: FastifyReply, limit: number, result: RateLimiterRes): void {
  reply.header('RateLimit-Limit', limit);
  reply.header('RateLimit-Remaining', Math.max(0, result.remainingPoints));
  reply.header('RateLimit-Reset', Math.ceil(result.msBeforeNext / 1000));
}

/**
 * A steady `perSecond` rate plus as many again for bursts (refilled every 10 s), so a client may
 * send twice the rate at once but not keep it up.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  if (options.perSecond === 0) return { take: async () => {} };
  const steady = limiter(options, 'steady', options.perSecond, 1);
  const burst = limiter(options, 'burst', options.perSecond, BURST_WINDOW_SECONDS);
  const bursty = new BurstyRateLimiter(steady, burst);
  return {
    async take(key, reply) {
      try {
        setHeaders(reply, options.perSecond, await bursty.consume(key));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        setHeaders(reply, options.perSecond, rejection);
        reply.header('Retry-After', Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        throw new AppError(
          'rate_limited',
          `Rate limit of ${options.perSecond} requests per second exceeded; slow down`,
        );
      }
    },
  };
}
