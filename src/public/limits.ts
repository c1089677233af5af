import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { clientKey } from '../http/client-address.ts';
import { createQuota, createRateLimit } from '../http/rate-limit.ts';

/**
 * What one page view may write. The tracker of a page view sends a batch every 5 s and on
 * visibility changes, and keeps one session per tab and audience (across reloads, each of which
 * is a page view of its own); a visitor sends the page's form once, or again after an error.
 */
const BATCHES_PER_SECOND_PER_TOKEN = 1;
const BATCH_BURST_PER_TOKEN = 10;
const SESSIONS_PER_TOKEN = 2;
const FORMS_PER_TOKEN = 3;
const HOUR_S = 3600;

export interface VisitorLimitOptions {
  /** False when TAILOR_PUBLIC_RATE_LIMIT_RPS is 0, which turns every limit of the visitor side off. */
  enabled: boolean;
  /**
   * TAILOR_PUBLIC_VISITORS_PER_HOUR: the real visitors one client address may stand for in an hour
   * (a company's or a carrier's NAT): new sessions per audience, and forms; 0 turns these two off.
   */
  visitorsPerHour: number;
  /** When given, counters live in Redis and every node shares them. */
  redis?: Redis;
}

/** Where a visitor's write comes from: the page view's token (as sent) and the client address. */
export interface VisitorOrigin {
  token: string;
  address: string;
}

/** The limits of anonymous writes beyond the per-address request rate; each throws 429 rate_limited. */
export interface VisitorLimits {
  /** Whether any limit applies: when none does, a write need not ask whether its session is new. */
  readonly on: boolean;
  /** Counts an event batch of a page view. */
  eventBatch(origin: VisitorOrigin, reply: FastifyReply): Promise<void>;
  /** Counts a form submission, per page view and per address. */
  formSubmission(origin: VisitorOrigin, reply: FastifyReply): Promise<void>;
  /** Counts a session that a page view starts for `audienceId`, per page view and per address. */
  newSession(origin: VisitorOrigin, audienceId: string, reply?: FastifyReply): Promise<void>;
}

/** A token's counters are keyed by a hash of it: short keys, and no credential in Redis. */
function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}

const NO_LIMITS: VisitorLimits = {
  on: false,
  eventBatch: async () => {},
  formSubmission: async () => {},
  newSession: async () => {},
};

export function createVisitorLimits(options: VisitorLimitOptions): VisitorLimits {
  if (!options.enabled) return NO_LIMITS;
  const { redis } = options;
  const hourly = (name: string, points: number, counts: string) =>
    createQuota({ name, points, windowSeconds: HOUR_S, counts, redis });
  const batchesPerToken = createRateLimit({
    name: 'token-events',
    perSecond: BATCHES_PER_SECOND_PER_TOKEN,
    burst: BATCH_BURST_PER_TOKEN,
    counts: 'event batches of a page view',
    redis,
  });
  const sessionsPerToken = hourly('token-sessions', SESSIONS_PER_TOKEN, 'new sessions of a page view');
  const formsPerToken = hourly('token-forms', FORMS_PER_TOKEN, 'form submissions of a page view');
  const sessionsPerAddress = hourly(
    'ip-sessions',
    options.visitorsPerHour,
    'new sessions of an audience from one client address',
  );
  const formsPerAddress = hourly(
    'ip-forms',
    options.visitorsPerHour,
    'form submissions from one client address',
  );

  return {
    on: true,
    eventBatch: ({ token }, reply) => batchesPerToken.take(tokenKey(token), reply),
    async formSubmission({ token, address }, reply) {
      await formsPerToken.take(tokenKey(token), reply);
      await formsPerAddress.take(clientKey(address), reply);
    },
    async newSession({ token, address }, audienceId, reply) {
      await sessionsPerToken.take(tokenKey(token), reply);
      await sessionsPerAddress.take(`${clientKey(address)} ${audienceId}`, reply);
    },
  };
}
