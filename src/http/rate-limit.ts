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
  /**
   * Counts one request for `key` and sets the RateLimit headers on `reply` (when given); throws
   * rate_limited past the limit.
   */
  take(key: string, reply?: FastifyReply): Promise<void>;
}

/** A limit that counts `points` per window of `windowSeconds` (fixed windows, from a key's first use). */
export interface QuotaOptions {
  /** What a key may do per window; 0 turns the quota off. */
  points: number;
  windowSeconds: number;
  /** Names the counters, so that separate limits never share them. */
  name: string;
  /** What is counted and for whom, for the 429 message: "new sessions of an audience per client IP". */
  counts: string;
  /** When given, counters live in Redis and every node shares them. */
  redis?: Redis;
}

const NO_LIMIT: RateLimit = { take: async () => {} };

function limiter(options: { name: string; redis?: Redis }, suffix: string, points: number, duration: number) {
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
 * Sets the RateLimit headers for `limit` with `left` of it, unless an answer already carries those
 * of a limit closer to its end: where several limits apply, the headers tell of the tightest.
 */
function setHeaders(reply: FastifyReply | undefined, limit: number, left: Allowance): void {
  if (!reply) return;
  const shown = reply.getHeader('RateLimit-Remaining');
  if (shown !== undefined && Number(shown) < left.remaining) return;
  reply.header('RateLimit-Limit', limit);
  reply.header('RateLimit-Remaining', left.remaining);
  reply.header('RateLimit-Reset', Math.ceil(left.msBeforeNext / 1000));
}

/** Answers 429 rate_limited: nothing left of `limit` until `msBeforeNext` has passed. */
function refuse(reply: FastifyReply | undefined, limit: number, msBeforeNext: number, detail: string): never {
  if (reply) {
    setHeaders(reply, limit, { remaining: 0, msBeforeNext });
    reply.header('Retry-After', Math.max(1, Math.ceil(msBeforeNext / 1000)));
  }
  throw new AppError('rate_limited', detail);
}

/**
 * A steady `perSecond` rate, plus a burst allowance (up to `burst` at once) that comes back over 10
 * seconds, so a client may send a burst but not keep it up. The headers count both:
 * `RateLimit-Remaining` is what the client may still send right now.
 */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  if (options.perSecond === 0) return NO_LIMIT;
  const extra = Math.max(0, options.burst - options.perSecond);
  const steady = new Window(limiter(options, 'steady', options.perSecond, 1), options.perSecond);
  const allowance = new Window(
    extra > 0 ? limiter(options, 'burst', extra, BURST_WINDOW_SECONDS) : undefined,
    extra,
  );
  const limit = options.perSecond + extra;
  const detail = `Rate limit of ${options.perSecond} ${options.counts} per second (${limit} at once) exceeded; slow down`;
  // With nothing left, the steady second's refill (under a second away) always comes first.
  const refuseUntilRefill = async (key: string, reply: FastifyReply | undefined): Promise<never> =>
    refuse(reply, limit, (await steady.peek(key)).msBeforeNext, detail);

  return {
    async take(key, reply) {
      const [fromSteady, burstLeft] = await Promise.all([steady.consume(key), allowance.peek(key)]);
      if (fromSteady) {
        setHeaders(reply, limit, { ...fromSteady, remaining: fromSteady.remaining + burstLeft.remaining });
        return;
      }
      const fromBurst = await allowance.consume(key);
      if (!fromBurst) return refuseUntilRefill(key, reply);
      setHeaders(reply, limit, fromBurst);
    },
  };
}

/** "an hour", "10 minutes", "30 seconds": a window as the 429 message says it. */
function windowName(seconds: number): string {
  if (seconds === 3600) return 'an hour';
  if (seconds % 3600 === 0) return `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/**
 * At most `points` per window: for what a client does a few times in a visit (starting a session,
 * submitting a form), where a per-second rate would be far too loose. Refused requests count too.
 */
export function createQuota(options: QuotaOptions): RateLimit {
  if (options.points === 0) return NO_LIMIT;
  const { points } = options;
  const window = new Window(limiter(options, 'window', points, options.windowSeconds), points);
  const detail = `Limit of ${points} ${options.counts} in ${windowName(options.windowSeconds)} exceeded; try again later`;
  const refuseUntilNext = async (key: string, reply: FastifyReply | undefined): Promise<never> =>
    refuse(reply, points, (await window.peek(key)).msBeforeNext, detail);

  return {
    async take(key, reply) {
      const left = await window.consume(key);
      if (!left) return refuseUntilNext(key, reply);
      setHeaders(reply, points, left);
    },
  };
}

/** Counts the uses of each key per window: for a limit whose size depends on each use. */
export interface Tally {
  /**
   * Counts one use of `key` and answers how many it has had in the window, this one included;
   * past `points` the answer is only known to be more than that.
   */
  count(key: string): Promise<number>;
}

/** A tally of uses per window of `windowSeconds` (fixed windows, from a key's first use). */
export function createTally(options: Omit<QuotaOptions, 'counts'>): Tally {
  const counter = limiter(options, 'tally', options.points, options.windowSeconds);
  return {
    async count(key) {
      try {
        return (await counter.consume(key)).consumedPoints;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return rejection.consumedPoints;
        throw rejection;
      }
    },
  };
}
