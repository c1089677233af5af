import type { TenantDb } from '../../db/tenant-db.ts';
import { personOfAudience } from '../../resources/audiences/service.ts';
import {
  IN_LIFT,
  type LiftStanding,
  type Recorded,
  recordSessionEvents,
  sessionExists,
  type Visit,
} from '../../resources/sessions/service.ts';
import { AppError, invalidField } from '../../shared/errors.ts';

/** Two batches of a new session racing to create it: the loser runs again and adds to it. */
const SESSION_RACE_ATTEMPTS = 3;

/**
 * Lets a visitor start a new session, answering whether it counts toward lift, or throws
 * rate_limited: the visitor side's limits on new sessions answer it. It is asked before the
 * transaction that starts the session, so that no transaction waits on it (a Redis round trip would
 * hold SQLite's one connection).
 */
export type SessionAdmission = () => Promise<LiftStanding>;

/**
 * How a form may count in the session: as the session does when it is known, as `admit` says when
 * it would start it; undefined when `admit` refuses.
 */
export async function sessionAdmitted(
  db: TenantDb,
  sessionId: string,
  admit: SessionAdmission,
): Promise<LiftStanding | undefined> {
  if (await sessionExists(db, sessionId)) return IN_LIFT;
  try {
    return await admit();
  } catch (error) {
    if (error instanceof AppError && error.code === 'rate_limited') return undefined;
    throw error;
  }
}

/**
 * Records what a visitor did on a public page: the session's events and, when the audience is for
 * a person, that person's activity (which moves their account's latestActivityAt; migration 0032's
 * trigger does both with the session's write), in one transaction, so that a batch that was
 * acknowledged is on disk. A new session starts only when `admitSession` (the visitor side's limits)
 * lets it, and counts toward lift as it answers; its refusal stores nothing. Without it, every new
 * session counts toward lift.
 *
 * The audience is not read beforehand: a session of an audience that no longer exists fails on its
 * foreign key, and only a failed batch looks whether the audience is there.
 */
export async function recordVisit(
  db: TenantDb,
  visit: Visit,
  events: Recorded[],
  now = Date.now(),
  admitSession?: SessionAdmission,
): Promise<number> {
  const standing =
    admitSession && !(await sessionExists(db, visit.sessionId)) ? await admitSession() : IN_LIFT;
  await record(db, visit, events, now, standing);
  return events.length;
}

/** Records the events in one transaction; see recordVisit. */
async function record(
  db: TenantDb,
  visit: Visit,
  events: Recorded[],
  now: number,
  standing: LiftStanding,
): Promise<void> {
  try {
    await db.retryingTransaction(SESSION_RACE_ATTEMPTS, (tx) =>
      recordSessionEvents(tx, visit, events, now, standing),
    );
  } catch (error) {
    if (!(error instanceof AppError) && (await personOfAudience(db, visit.audienceId)) === undefined) {
      throw invalidField('/body/token', 'names a page that no longer exists');
    }
    throw error;
  }
}

/**
 * A form submitted during a session counts toward its conversions and form submissions; a session
 * it starts counts toward lift as `standing` says (the visitor side's limits, when they apply).
 */
export async function recordFormInSession(
  db: TenantDb,
  visit: Visit,
  at: number,
  standing = IN_LIFT,
): Promise<void> {
  await record(db, visit, [{ type: 'form_submit' }], at, standing);
}
