import type { TenantDb } from '../../db/tenant-db.ts';
import { personOfAudience } from '../../resources/audiences/service.ts';
import { notePersonActivity } from '../../resources/persons/service.ts';
import {
  type Recorded,
  recordSessionEvents,
  type SessionAdmission,
  type Visit,
} from '../../resources/sessions/service.ts';
import { invalidField } from '../../shared/errors.ts';

/** Two batches of a new session racing to create it: the loser runs again and adds to it. */
const SESSION_RACE_ATTEMPTS = 3;

/**
 * Records what a visitor did on a public page: the session's events and, when the audience is for
 * a person, that person's activity (which moves their account's latestActivityAt), in one
 * transaction, so that a batch that was acknowledged is on disk. A new session starts only when
 * `admitSession` (the visitor side's limits) lets it; its refusal stores nothing.
 */
export async function recordVisit(
  db: TenantDb,
  visit: Visit,
  events: Recorded[],
  now = Date.now(),
  admitSession?: SessionAdmission,
): Promise<number> {
  const personId = await personOfAudience(db, visit.audienceId);
  if (personId === undefined) throw invalidField('/body/token', 'names a page that no longer exists');
  await db.retryingTransaction(SESSION_RACE_ATTEMPTS, async (tx) => {
    await recordSessionEvents(tx, visit, events, now, admitSession);
    if (personId) await notePersonActivity(tx, personId, now);
  });
  return events.length;
}

/** A form submitted during a session counts toward its conversions and form submissions. */
export async function recordFormInSession(
  db: TenantDb,
  visit: Visit,
  at: number,
  admitSession?: SessionAdmission,
): Promise<void> {
  await recordVisit(db, visit, [{ type: 'form_submit' }], at, admitSession);
}
