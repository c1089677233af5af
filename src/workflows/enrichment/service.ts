import type { TenantDb } from '../../db/tenant-db.ts';
import { enqueue, type JobKind } from '../../jobs/queue.ts';
import * as accounts from '../../resources/accounts/service.ts';
import type {
  EnrichmentFailure,
  FormEnrichmentFailedData,
  FormSubmissionAccepted,
  FormSubmissionCreate,
} from '../../resources/forms/schema.ts';
import type { FormOrigin, PendingSubmission } from '../../resources/forms/service.ts';
import * as forms from '../../resources/forms/service.ts';
import * as pages from '../../resources/pages/service.ts';
import * as logs from '../../resources/persons/log-service.ts';
import type { Person } from '../../resources/persons/schema.ts';
import type { AccountOfDomain } from '../../resources/persons/service.ts';
import * as persons from '../../resources/persons/service.ts';
import { IN_LIFT, type LiftStanding } from '../../resources/sessions/service.ts';
import { emailDomain } from '../../shared/email.ts';
import { AppError } from '../../shared/errors.ts';
import { emitEvent } from '../events/payloads.ts';
import { recordFormInSession, type SessionAdmission, sessionAdmitted } from '../visits/service.ts';
import { isFreeMailDomain } from './free-mail.ts';
import type { Submitter } from './provider.ts';
import type { FormEnrichedData } from './schema.ts';

export const ENRICH_JOB = 'submissions.enrich' satisfies JobKind;

declare module '../../jobs/queue.ts' {
  interface JobPayloads {
    'submissions.enrich': { formSubmissionId: string };
  }
}
/** A provider that is down gets about 40 minutes (see the job's retry delays) before the submission fails. */
export const ENRICH_ATTEMPTS = 5;

const ACTIVITY_VALUE_SHOWN = 500;

/**
 * Counts the submission in the visitor's session. Analytics are secondary to the form itself: when
 * the session cannot take it (its id belongs to another page's session, or the audience is gone),
 * the submission is stored all the same and only the count is skipped.
 */
async function countInSession(
  db: TenantDb,
  sessionId: string,
  origin: FormOrigin,
  at: number,
  standing: LiftStanding,
): Promise<void> {
  try {
    await recordFormInSession(db, { sessionId, ...origin }, at, standing);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'validation_failed')) throw error;
  }
}

/**
 * Stores a form submission, with its `form.submitted` event, its enrichment job and its count in
 * the session, in one transaction: once this returns the submission is on disk and will be
 * enriched, whatever crashes afterwards. A session that the submission would start counts it only
 * when `admitSession` lets it start; the submission is stored either way.
 */
export async function submitForm(
  db: TenantDb,
  origin: FormOrigin,
  input: Omit<FormSubmissionCreate, 'token'>,
  { now = Date.now(), admitSession }: { now?: number; admitSession?: SessionAdmission } = {},
): Promise<FormSubmissionAccepted> {
  const { sessionId } = input;
  const standing =
    sessionId === undefined || !admitSession ? IN_LIFT : await sessionAdmitted(db, sessionId, admitSession);
  return db.transaction(async (tx) => {
    const submitted = await forms.storeSubmission(tx, origin, input, now);
    await emitEvent(tx, 'form.submitted', submitted);
    await enqueue(
      tx,
      ENRICH_JOB,
      { formSubmissionId: submitted.formSubmissionId },
      { maxAttempts: ENRICH_ATTEMPTS },
    );
    if (standing && sessionId) await countInSession(tx, sessionId, origin, now, standing);
    return { formSubmissionId: submitted.formSubmissionId, submittedAt: submitted.submittedAt };
  });
}

/** Ends enrichment in failure and says why; nothing happens when it has already ended. */
export async function failEnrichment(db: TenantDb, id: string, reason: EnrichmentFailure): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await forms.markFailed(tx, id, reason))) return;
    const data: FormEnrichmentFailedData = { formSubmissionId: id, reason };
    await emitEvent(tx, 'form.enrichment_failed', data);
  });
}

async function personByEmail(db: TenantDb, email: string): Promise<Person | undefined> {
  return (await persons.listAllPersons(db, { email }, { limit: 1 })).items[0];
}

/**
 * The account a new person of the domain is linked to: none for a free-mail domain, which names a
 * mailbox provider rather than the person's company (an account of gmail.com would tie unrelated
 * visitors together).
 */
const companyAccount: AccountOfDomain = (db, domain) =>
  isFreeMailDomain(domain) ? Promise.resolve(null) : accounts.accountIdForDomain(db, domain);

/**
 * The person with this address (case-insensitively), else a new one, linked to the account of the
 * address's company (none for a free-mail address). A person made meanwhile by another submission
 * (or through the API) is found and used.
 */
async function findOrCreatePerson(db: TenantDb, submitter: Submitter): Promise<Person> {
  const existing = await personByEmail(db, submitter.email);
  if (existing) return existing;
  try {
    return await persons.createPerson(db, { name: submitter.name, email: submitter.email }, companyAccount);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    const winner = await personByEmail(db, submitter.email);
    if (!winner) throw error;
    return winner;
  }
}

async function activityText(db: TenantDb, submission: PendingSubmission): Promise<string> {
  const page = await pages.getPage(db, submission.pageId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  });
  const where = page ? `the page "${page.name}" (${submission.pageId})` : `page ${submission.pageId}`;
  const lines = Object.entries(submission.fields).map(([name, value]) => {
    const shown = value.length > ACTIVITY_VALUE_SHOWN ? `${value.slice(0, ACTIVITY_VALUE_SHOWN)}…` : value;
    return `${name}: ${shown}`;
  });
  return [`Submitted a form on ${where} (submission ${submission.formSubmissionId}).`, ...lines].join('\n');
}

/**
 * Records the submitter: finds or creates the person, writes an activity entry on them (which
 * moves their account's latestActivityAt), marks the submission enriched with the person and
 * their account (as the person is linked: none for a new free-mail person) and emits
 * `form.enriched`. The person is made before the final transaction because creating one retries
 * on its own; should the process die in between, the next attempt finds them by email.
 */
export async function completeEnrichment(db: TenantDb, id: string, submitter: Submitter): Promise<void> {
  const submission = await forms.pendingSubmission(db, id);
  if (!submission) return;
  // A provider's answer is checked like any input: a person's email must be an address.
  if (!emailDomain(submitter.email))
    throw new Error('The enrichment provider answered with an invalid address');
  const found = await findOrCreatePerson(db, submitter);
  const text = await activityText(db, submission);
  await db.transaction(async (tx) => {
    const linked = (await persons.personSummaries(tx, [found.personId])).get(found.personId);
    // Erased since they were found: the job's next attempt finds or makes the person again.
    if (!linked) throw new Error(`Person ${found.personId} was erased during enrichment`);
    const { accountId } = linked;
    if (!(await forms.markEnriched(tx, id, { personId: found.personId, accountId }))) return;
    await logs.addActivity(tx, found.personId, text, 'visitor');
    const data: FormEnrichedData = {
      formSubmissionId: id,
      person: await persons.getPerson(tx, found.personId),
      account: accountId ? await accounts.getAccountFields(tx, accountId) : null,
    };
    await emitEvent(tx, 'form.enriched', data);
  });
}
