import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { AppError } from '../shared/errors.ts';

/** How long the burst allowance above the steady rate takes to come back once spent. */
const BURST_WINDOW_SECONDS = 10;

export interface RateLimitOptions {
  /** Requests per second kept up; 0 turns the limit off. */
  perSecond: number;
  /** Requests a client may send at once (the steady second's and the burst allowance together). */
  burst: number;
  /** Names the counters, so that separate limits never share them. */
  name: string;
  /** What is limited, for the 429 message: "requests", "failed authentications". */
  counts: string;
  /** When given, counters live in Redis and every node shares them. */
  redis?: Redis;
}

export interface RateLimit {
  /** Counts one request for `key` and sets the RateLimit headers; throws rate_limited past the limit. */
  take(key: string, reply: FastifyReply): Promise<void>;
}

function limiter(options: RateLimitOptions, suffix: string, points: number, duration: number) {
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

/** What a key has left: requests it may still send now, and when the next one comes back. */
interface Allowance {
  remaining: number;
  msBeforeNext: number;
}

/** A counter of `points` per window, read without counting when `consume` is false. */
class Window {
  constructor(
    private readonly limiter: RateLimiterAbstract | undefined,
    private readonly points: number,
  ) {}

  /** The allowance left after counting one request, or undefined when there was none. */
  async consume(key: string): Promise<Allowance | undefined> {
    if (!this.limiter) return undefined;
    try {
      const result = await this.limiter.consume(key);
      return { remaining: result.remainingPoints, msBeforeNext: result.msBeforeNext };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return undefined;
      throw rejection;
    }
  }

  async peek(key: string): Promise<Allowance> {
    const result = this.limiter ? await this.limiter.get(key) : null;
    if (!result) return { remaining: this.points, msBeforeNext: 0 };
    return { remaining: Math.max(0, result.remainingPoints), msBeforeNext: result.msBeforeNext };
  }
}

/**
 * A steady `perSecond` rate, plus a burst allowance (up to `burst` at once) that comes back over 10
 * seconds, so a client may send a burst but not keep it up. The headers count both:
 * `RateLimit-Remaining` is what the client may still send right now.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  if (options.perSecond === 0) return { take: async () => {} };
  const extra = Math.max(0, options.burst - options.perSecond);
  const steady = new Window(limiter(options, 'steady', options.perSecond, 1), options.perSecond);
  const allowance = new Window(
    extra > 0 ? limiter(options, 'burst', extra, BURST_WINDOW_SECONDS) : undefined,
    extra,
  );
  const limit = options.perSecond + extra;

  const setHeaders = (reply: FastifyReply, left: Allowance) => {
    reply.header('RateLimit-Limit', limit);
    reply.header('RateLimit-Remaining', left.remaining);
    reply.header('RateLimit-Reset', Math.ceil(left.msBeforeNext / 1000));
  };

  // With nothing left, the steady second's refill (under a second away) always comes first.
  const refuse = (reply: FastifyReply, { msBeforeNext }: Allowance): never => {
    setHeaders(reply, { remaining: 0, msBeforeNext });
    reply.header('Retry-After', Math.max(1, Math.ceil(msBeforeNext / 1000)));
    throw new AppError(
      'rate_limited',
      `Rate limit of ${options.perSecond} ${options.counts} per second (${limit} at once) exceeded; slow down`,
    );
  };

  return {
    async take(key, reply) {
      const [fromSteady, burstLeft] = await Promise.all([steady.consume(key), allowance.peek(key)]);
      if (fromSteady) {
        setHeaders(reply, { ...fromSteady, remaining: fromSteady.remaining + burstLeft.remaining });
        return;
      }
      const fromBurst = await allowance.consume(key);
      if (!fromBurst) return refuse(reply, await steady.peek(key));
      setHeaders(reply, fromBurst);
    },
  };
}
