import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { clientKey } from '../http/client-address.ts';
import { createQuota, createRateLimit } from '../http/rate-limit.ts';

/**
 * What one visit may write: the tracker sends a batch every 5 s and on visibility changes, for the
 * one session it keeps per tab and audience; a visitor sends the page's form once, or again after
 * an error. A page's token is the same for every visitor of its link and arm (it is signed once,
 * when the page is rendered and kept: docs/public-pages.md), so a visit is its token and the session
 * it reports for (the client address for a form sent without one). New sessions are bounded per
 * client address and audience, so new session ids do not escape these limits.
 */
const BATCHES_PER_SECOND_PER_VISIT = 1;
const BATCH_BURST_PER_VISIT = 10;
const FORMS_PER_VISIT = 3;
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

/** Where a visitor's write comes from: the page's token (as sent), the client address, the session. */
export interface VisitorOrigin {
  token: string;
  address: string;
  sessionId?: string;
}

/** The limits of anonymous writes beyond the per-address request rate; each throws 429 rate_limited. */
export interface VisitorLimits {
  /** Whether any limit applies: when none does, a write need not ask whether its session is new. */
  readonly on: boolean;
  /** Counts an event batch of a visit. */
  eventBatch(origin: VisitorOrigin, reply: FastifyReply): Promise<void>;
  /** Counts a form submission, per visit and per address. */
  formSubmission(origin: VisitorOrigin, reply: FastifyReply): Promise<void>;
  /** Counts a session that a visitor starts for `audienceId`, per address and audience. */
  newSession(origin: VisitorOrigin, audienceId: string, reply?: FastifyReply): Promise<void>;
}

/**
 * A visit's counters: a hash of its token (short keys, and no credential in Redis), and its session,
 * else its client address.
 */
function visitKey({ token, sessionId, address }: VisitorOrigin): string {
  const hash = createHash('sha256').update(token).digest('base64url').slice(0, 22);
  return `${hash} ${sessionId === undefined ? clientKey(address) : `s:${sessionId}`}`;
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
  const batchesPerVisit = createRateLimit({
    name: 'visit-events',
    perSecond: BATCHES_PER_SECOND_PER_VISIT,
    burst: BATCH_BURST_PER_VISIT,
    counts: 'event batches of a visit',
    redis,
  });
  const formsPerVisit = hourly('visit-forms', FORMS_PER_VISIT, 'form submissions of a visit');
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
    eventBatch: (origin, reply) => batchesPerVisit.take(visitKey(origin), reply),
    async formSubmission(origin, reply) {
      await formsPerVisit.take(visitKey(origin), reply);
      await formsPerAddress.take(clientKey(origin.address), reply);
    },
    newSession: ({ address }, audienceId, reply) =>
      sessionsPerAddress.take(`${clientKey(address)} ${audienceId}`, reply),
  };
}
