import type { Kysely } from 'kysely';
import type { TenantDb } from '../../db/tenant-db.ts';
import { newId } from '../../shared/ids.ts';
import { toTimestamp } from '../../shared/time.ts';
import type { EnrichmentFailure, FormFields, FormSubmissionCreate, FormSubmittedData } from './schema.ts';
import {
  deleteSubmissionsBefore,
  findSubmission,
  insertSubmission,
  type SubmissionRow,
  settleSubmission,
} from './store.ts';
import type { FormsTables } from './tables.ts';

/** What the page's token says the form was on. */
export interface FormOrigin {
  pageId: string;
  audienceId: string;
  pageLinkId: string;
}

/** A submission still waiting for enrichment. */
export interface PendingSubmission {
  formSubmissionId: string;
  pageId: string;
  /** The address the submission carried (see submissionEmail), or null. */
  email: string | null;
  fields: FormFields;
}

/**
 * The address to enrich: the body's `email`, else the form's `email` field, whichever is first
 * not blank; stored as sent. The page's own form sends both; a hand-written form usually has only
 * the field.
 */
export function submissionEmail(input: Pick<FormSubmissionCreate, 'email' | 'fields'>): string | null {
  for (const candidate of [input.email, input.fields.email]) if (candidate?.trim()) return candidate;
  return null;
}

/** Stores a submission, pending enrichment; answers it as the `form.submitted` event shows it. */
export async function storeSubmission(
  tx: TenantDb,
  origin: FormOrigin,
  input: Omit<FormSubmissionCreate, 'token'>,
  now: number,
): Promise<FormSubmittedData> {
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
  await insertSubmission(tx, row);
  return {
    formSubmissionId: row.id,
    pageId: row.page_id,
    audienceId: row.audience_id,
    pageLinkId: row.page_link_id,
    email: row.email,
    fields: input.fields,
    submittedAt: toTimestamp(now),
  };
}

/** The submission while it waits for enrichment; undefined once enrichment has ended. */
export async function pendingSubmission(db: TenantDb, id: string): Promise<PendingSubmission | undefined> {
  const row = await findSubmission(db, id);
  if (row?.enrichment_state !== 'pending') return undefined;
  return {
    formSubmissionId: row.id,
    pageId: row.page_id,
    email: row.email,
    fields: JSON.parse(row.fields) as FormFields,
  };
}

/**
 * Records that enrichment found the submitter; false when enrichment had already ended (another run,
 * a worker that took over an expired lease, settled it first).
 */
export function markEnriched(
  tx: TenantDb,
  id: string,
  submitter: { personId: string; accountId: string | null },
): Promise<boolean> {
  return settleSubmission(tx, id, {
    enrichment_state: 'enriched',
    person_id: submitter.personId,
    account_id: submitter.accountId,
  });
}

/** Records that enrichment failed and why; false when it had already ended. */
export function markFailed(tx: TenantDb, id: string, reason: EnrichmentFailure): Promise<boolean> {
  return settleSubmission(tx, id, { enrichment_state: 'failed', enrichment_failure: reason });
}

/** Deletes, across tenants, the submissions made before `before`, whatever their enrichment; answers how many. */
export function purgeSubmissionsBefore(db: Kysely<FormsTables>, before: number): Promise<number> {
  return deleteSubmissionsBefore(db, before);
}
