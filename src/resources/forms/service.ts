import type { TenantDb } from '../../db/tenant-db.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { enqueue } from '../../jobs/queue.ts';
import { toTimestamp } from '../../time.ts';
import { accountIdForDomain, getAccount } from '../accounts/service.ts';
import { getPage } from '../pages/service.ts';
import { addActivity } from '../person-logs/service.ts';
import type { Person } from '../persons/schema.ts';
import { createPerson, getPerson, listAllPersons } from '../persons/service.ts';
import { recordFormSubmitted } from '../sessions/service.ts';
import { emitEvent } from '../webhooks/events.ts';
import { addressDomain, type EnrichmentRequest, type Submitter } from './provider.ts';
import type {
  EnrichedAccount,
  EnrichmentFailure,
  FormEnrichedData,
  FormEnrichmentFailedData,
  FormFields,
  FormSubmissionAccepted,
  FormSubmissionCreate,
  FormSubmittedData,
} from './schema.ts';
import { findSubmission, insertSubmission, type SubmissionRow, settleSubmission } from './store.ts';

export const ENRICH_JOB = 'form.enrich';
/** A provider that is down gets about 40 minutes (see the job's retry delays) before the submission fails. */
export const ENRICH_ATTEMPTS = 5;

/** What the page's token says the form was on. */
export interface FormOrigin {
  pageId: string;
  audienceId: string;
  pageLinkId: string;
}

const ACTIVITY_VALUE_SHOWN = 500;

/**
 * The address to enrich: the body's `email`, else the form's `email` field, whichever is first
 * not blank; stored as sent. The page's own form sends both; a hand-written form usually has only
 * the field.
 */
export function submissionEmail(input: Pick<FormSubmissionCreate, 'email' | 'fields'>): string | null {
  for (const candidate of [input.email, input.fields.email]) if (candidate?.trim()) return candidate;
  return null;
}

function submittedData(row: SubmissionRow, fields: FormFields): FormSubmittedData {
  return {
    formSubmissionId: row.id,
    pageId: row.page_id,
    audienceId: row.audience_id,
    pageLinkId: row.page_link_id,
    email: row.email,
    fields,
    submittedAt: toTimestamp(row.submitted_at),
  };
}

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
): Promise<void> {
  try {
    await recordFormSubmitted(db, { sessionId, ...origin }, at);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'validation_failed')) throw error;
  }
}

/**
 * Stores a form submission, with its `form.submitted` event, its enrichment job and its count in
 * the session, in one transaction: once this returns the submission is on disk and will be
 * enriched, whatever crashes afterwards.
 */
export async function submitForm(
  db: TenantDb,
  origin: FormOrigin,
  input: Omit<FormSubmissionCreate, 'token'>,
  now = Date.now(),
): Promise<FormSubmissionAccepted> {
  const row: SubmissionRow = {
    id: newId('form'),
    page_id: origin.pageId,
    audience_id: origin.audienceId,
    page_link_id: origin.pageLinkId,
    session_id: input.sessionId ?? null,
    email: submissionEmail(input),
    fields: JSON.stringify(input.fields),
    submitted_at: now,
    enrichment_state: 'pending',
    enrichment_failure: null,
    person_id: null,
    account_id: null,
  };
  await db.transaction(async (tx) => {
    await insertSubmission(tx, row);
    await emitEvent(tx, 'form.submitted', submittedData(row, input.fields));
    await enqueue(tx, ENRICH_JOB, { formSubmissionId: row.id }, { maxAttempts: ENRICH_ATTEMPTS });
    if (input.sessionId) await countInSession(tx, input.sessionId, origin, now);
  });
  return { formSubmissionId: row.id, submittedAt: toTimestamp(now) };
}

/** What a provider is asked about a submission still waiting for enrichment; undefined once settled. */
export async function pendingEnrichment(db: TenantDb, id: string): Promise<EnrichmentRequest | undefined> {
  const row = await findSubmission(db, id);
  if (row?.enrichment_state !== 'pending') return undefined;
  return { formSubmissionId: row.id, email: row.email, fields: JSON.parse(row.fields) as FormFields };
}

/** Ends enrichment in failure and says why; nothing happens when it has already ended. */
export async function failEnrichment(db: TenantDb, id: string, reason: EnrichmentFailure): Promise<void> {
  await db.transaction(async (tx) => {
    const settled = await settleSubmission(tx, id, {
      enrichment_state: 'failed',
      enrichment_failure: reason,
    });
    if (!settled) return;
    const data: FormEnrichmentFailedData = { formSubmissionId: id, reason };
    await emitEvent(tx, 'form.enrichment_failed', data);
  });
}

async function personByEmail(db: TenantDb, email: string): Promise<Person | undefined> {
  return (await listAllPersons(db, { email }, { limit: 1 })).items[0];
}

/**
 * The person with this address (case-insensitively), else a new one, linked to the account of the
 * address's domain by the persons service. A person made meanwhile by another submission (or
 * through the API) is found and used.
 */
async function findOrCreatePerson(db: TenantDb, submitter: Submitter): Promise<Person> {
  const existing = await personByEmail(db, submitter.email);
  if (existing) return existing;
  try {
    return await createPerson(db, { name: submitter.name, email: submitter.email });
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    const winner = await personByEmail(db, submitter.email);
    if (!winner) throw error;
    return winner;
  }
}

async function presentAccount(db: TenantDb, accountId: string): Promise<EnrichedAccount> {
  const { linkedPersons: _linked, ...account } = await getAccount(db, accountId);
  return account;
}

async function activityText(db: TenantDb, row: SubmissionRow, fields: FormFields): Promise<string> {
  const page = await getPage(db, row.page_id).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  });
  const where = page ? `the page "${page.name}" (${row.page_id})` : `page ${row.page_id}`;
  const lines = Object.entries(fields).map(([name, value]) => {
    const shown = value.length > ACTIVITY_VALUE_SHOWN ? `${value.slice(0, ACTIVITY_VALUE_SHOWN)}…` : value;
    return `${name}: ${shown}`;
  });
  return [`Submitted a form on ${where} (submission ${row.id}).`, ...lines].join('\n');
}

/**
 * Records the submitter: finds or creates the person, writes an activity entry on them (which
 * moves their account's latestActivityAt), marks the submission enriched and emits
 * `form.enriched`. The person is made before the final transaction because creating one retries
 * on its own; should the process die in between, the next attempt finds them by email.
 */
export async function completeEnrichment(db: TenantDb, id: string, submitter: Submitter): Promise<void> {
  const row = await findSubmission(db, id);
  if (row?.enrichment_state !== 'pending') return;
  // A provider's answer is checked like any input: a person's email must be an address.
  if (!addressDomain(submitter.email))
    throw new Error('The enrichment provider answered with an invalid address');
  const fields = JSON.parse(row.fields) as FormFields;
  const found = await findOrCreatePerson(db, submitter);
  const accountId = found.domain ? await accountIdForDomain(db, found.domain) : null;
  const text = await activityText(db, row, fields);
  await db.transaction(async (tx) => {
    const settled = await settleSubmission(tx, id, {
      enrichment_state: 'enriched',
      person_id: found.personId,
      account_id: accountId,
    });
    if (!settled) return;
    await addActivity(tx, found.personId, text);
    const data: FormEnrichedData = {
      formSubmissionId: id,
      person: await getPerson(tx, found.personId),
      account: accountId ? await presentAccount(tx, accountId) : null,
    };
    await emitEvent(tx, 'form.enriched', data);
  });
}
