import { createHash } from 'node:crypto';
import binomialQuantile from '@stdlib/stats-base-dists-binomial-quantile';
import type { FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { clientKey } from '../http/client-address.ts';
import { createQuota, createRateLimit, createTally } from '../http/rate-limit.ts';
import { IN_LIFT, type LiftStanding } from '../resources/sessions/service.ts';
import type { Arm } from '../shared/arm.ts';

/**
 * What one visit may write: the tracker sends a batch every 5 s and on visibility changes, for the
 * one session it keeps per tab and audience; a visitor sends the page's form once, or again after
 * an error. A page's token is the same for every visitor of its link and arm (it is signed once,
 * when the page is rendered and kept: docs/public-pages.md), so a visit is its token and the session
 * it reports for (the client address for a form sent without one). New sessions are bounded per
 * client address and audience, so new session ids do not escape these limits; of those, each arm
 * counts toward lift only up to its share of the visitors the address may stand for.
 */
const BATCHES_PER_SECOND_PER_VISIT = 1;
const BATCH_BURST_PER_VISIT = 10;
const FORMS_PER_VISIT = 3;
const HOUR_S = 3600;
/**
 * Each arm of an audience counts toward lift, from one client address in an hour, the sessions that
 * the address's visitors would put in it but once in a thousand hours (docs/analytics.md).
 */
const HONEST_QUANTILE = 0.999;
/** The split of a token signed before tokens named their holdout: the widest, even one. */
const UNNAMED_HOLDOUT_PERCENT = 50;

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
  /**
   * Counts a session that a visitor starts on the page of `page`, per address and audience, and
   * answers whether it counts toward lift: whether its arm has had no more of the address's new
   * sessions this hour than the arm's share of its visitors allows (liftShare).
   */
  newSession(origin: VisitorOrigin, page: ServedArm, reply?: FastifyReply): Promise<LiftStanding>;
}

/**
 * What a page's token says of the arm a visitor was served, and how its audience splits them (the
 * holdout, absent from tokens signed before they named it).
 */
export interface ServedArm {
  audienceId: string;
  arm: Arm;
  holdoutPercent?: number;
}

/**
 * The most sessions of `visitors` new ones (those one address may start in an hour) that count
 * toward the lift of the arm `page` was served in: the 99.9th percentile of how many of them the
 * holdout's random split puts in that arm (binomial). An address can thus not choose its arms: what
 * it reports in one arm beyond what its own visitors would, it reports for analytics only. Real
 * visitors lose a session to it in fewer than one hour in a thousand, and only when the address
 * starts its whole allowance of sessions.
 */
export function liftShare(visitors: number, page: Pick<ServedArm, 'arm' | 'holdoutPercent'>): number {
  const held = (page.holdoutPercent ?? UNNAMED_HOLDOUT_PERCENT) / 100;
  return binomialQuantile(HONEST_QUANTILE, visitors, page.arm === 'baseline' ? held : 1 - held);
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
  newSession: async () => IN_LIFT,
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
  const sessionsPerArm = createTally({
    name: 'ip-arm-sessions',
    points: options.visitorsPerHour,
    windowSeconds: HOUR_S,
    redis,
  });
  const standingOf = async (sessionsKey: string, page: ServedArm): Promise<LiftStanding> => {
    if (options.visitorsPerHour === 0) return IN_LIFT;
    const sessions = await sessionsPerArm.count(`${sessionsKey} ${page.arm}`);
    return { inLift: sessions <= liftShare(options.visitorsPerHour, page) };
  };

  return {
    on: true,
    eventBatch: (origin, reply) => batchesPerVisit.take(visitKey(origin), reply),
    async formSubmission(origin, reply) {
      await formsPerVisit.take(visitKey(origin), reply);
      await formsPerAddress.take(clientKey(origin.address), reply);
    },
    async newSession({ address }, page, reply) {
      const key = `${clientKey(address)} ${page.audienceId}`;
      await sessionsPerAddress.take(key, reply);
      return standingOf(key, page);
    },
  };
}
