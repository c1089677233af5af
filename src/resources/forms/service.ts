import type { Kysely } from 'kysely';
import { fieldsOf, json, nullableTimestamp, timestamp } from '../../db/fields.ts';
import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { Arm } from '../../shared/arm.ts';
import { notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import {
  type EnrichmentFailure,
  type FormFields,
  FormSubmission,
  type FormSubmissionCreate,
  FormSubmissionEnrichment,
  FormSubmittedData,
} from './schema.ts';
import {
  deleteSubmissionsBefore,
  deleteSubmissionsOf,
  findSubmission,
  insertSubmission,
  listSubmissions,
  type SubmissionFilter,
  type SubmissionRow,
  settleSubmission,
} from './store.ts';
import type { FormsTables } from './tables.ts';

/** What the page's token says the form was on, and what it showed. */
export interface FormOrigin {
  pageId: string;
  audienceId: string;
  pageLinkId: string;
  arm: Arm;
  /** Null for a token signed before tokens named their version. */
  versionId: string | null;
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
    arm: origin.arm,
    version_id: origin.versionId,
    enrichment_state: 'pending',
    enrichment_failure: null,
    person_id: null,
    account_id: null,
    enrichment_finished_at: null,
  };
  await insertSubmission(tx, row);
  return submittedOf(row);
}

/** The one place the submitted fields of a submission meet their columns. */
const submittedFields = {
  formSubmissionId: 'id',
  pageId: 'page_id',
  audienceId: 'audience_id',
  pageLinkId: 'page_link_id',
  email: 'email',
  fields: { column: 'fields', codec: json<FormFields>() },
  submittedAt: { column: 'submitted_at', codec: timestamp },
} as const;

const enrichmentFields = fieldsOf<SubmissionRow>()(FormSubmissionEnrichment, {
  state: 'enrichment_state',
  // Written only from EnrichmentFailure values (markFailed); migration 0023 took back the one retired.
  reason: (row) => row.enrichment_failure as EnrichmentFailure | null,
  personId: 'person_id',
  accountId: 'account_id',
  finishedAt: { column: 'enrichment_finished_at', codec: nullableTimestamp },
});

/** The submission as `form.submitted` shows it. */
const submittedOf = fieldsOf<SubmissionRow>()(FormSubmittedData, submittedFields).present;

const presentSubmission = fieldsOf<SubmissionRow>()(FormSubmission, {
  ...submittedFields,
  arm: 'arm',
  versionId: 'version_id',
  enrichment: enrichmentFields.present,
}).present;

/** The tenant's submissions, newest first, narrowed by each filter given. */
export async function listFormSubmissions(
  db: TenantDb,
  filter: SubmissionFilter,
  page: Paging,
): Promise<Paged<FormSubmission>> {
  return mapPaged(await listSubmissions(db, filter, page), presentSubmission);
}

export async function getFormSubmission(db: TenantDb, id: string): Promise<FormSubmission> {
  const row = await findSubmission(db, id);
  if (!row) throw notFound(`Form submission ${id}`);
  return presentSubmission(row);
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
    enrichment_finished_at: Date.now(),
  });
}

/** Records that enrichment failed and why; false when it had already ended. */
export function markFailed(tx: TenantDb, id: string, reason: EnrichmentFailure): Promise<boolean> {
  return settleSubmission(tx, id, {
    enrichment_state: 'failed',
    enrichment_failure: reason,
    enrichment_finished_at: Date.now(),
  });
}

/** Deletes, across tenants, the submissions made before `before`, whatever their enrichment; answers how many. */
export function purgeSubmissionsBefore(db: Kysely<FormsTables>, before: number): Promise<number> {
  return deleteSubmissionsBefore(db, before);
}

/**
 * Deletes a person's submissions, for their erasure: those enrichment linked to them and those
 * sent with their address (`email`, compared case-insensitively), pending ones too, so that none is
 * enriched into them again. Answers the ids deleted.
 */
export function eraseSubmissionsOf(
  db: TenantDb,
  person: { personId: string; email: string | null },
): Promise<string[]> {
  return deleteSubmissionsOf(db, {
    personId: person.personId,
    emailKey: person.email?.toLowerCase() ?? null,
  });
}
