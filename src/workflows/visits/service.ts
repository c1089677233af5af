import type { TenantDb } from '../../db/tenant-db.ts';
import { personOfAudience } from '../../resources/audiences/service.ts';
import { notePersonActivity } from '../../resources/persons/service.ts';
import {
  type Recorded,
  recordSessionEvents,
  sessionExists,
  type Visit,
} from '../../resources/sessions/service.ts';
import { AppError, invalidField } from '../../shared/errors.ts';

/** Two batches of a new session racing to create it: the loser runs again and adds to it. */
const SESSION_RACE_ATTEMPTS = 3;

/**
 * Lets a visitor start a new session, or throws rate_limited: the visitor side's limits on new
 * sessions per page view and per client address answer it.
 */
export type SessionAdmission = () => Promise<void>;

/** Throws rate_limited when the session is new and `admit` refuses to start it; a known session goes on. */
export async function admitSession(db: TenantDb, sessionId: string, admit: SessionAdmission): Promise<void> {
  if (!(await sessionExists(db, sessionId))) await admit();
}

/** Whether the session may count a form: it is known, or `admit` lets it start. */
export async function sessionAdmitted(
  db: TenantDb,
  sessionId: string,
  admit: SessionAdmission,
): Promise<boolean> {
  try {
    await admitSession(db, sessionId, admit);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'rate_limited') return false;
    throw error;
  }
}

/**
 * Records what a visitor did on a public page: the session's events and, when the audience is for
 * a person, that person's activity (which moves their account's latestActivityAt), in one
 * transaction, so that a batch that was acknowledged is on disk.
 */
export async function recordVisit(
  db: TenantDb,
  visit: Visit,
  events: Recorded[],
  now = Date.now(),
): Promise<number> {
  const personId = await personOfAudience(db, visit.audienceId);
  if (personId === undefined) throw invalidField('/body/token', 'names a page that no longer exists');
  await db.retryingTransaction(SESSION_RACE_ATTEMPTS, async (tx) => {
    await recordSessionEvents(tx, visit, events, now);
    if (personId) await notePersonActivity(tx, personId, now);
  });
  return events.length;
}

/** A form submitted during a session counts toward its conversions and form submissions. */
export async function recordFormInSession(db: TenantDb, visit: Visit, at: number): Promise<void> {
  await recordVisit(db, visit, [{ type: 'form_submit' }], at);
}
