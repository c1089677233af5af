import type { Kysely, Selectable, Updateable } from 'kysely';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { FormSubmissionsTable, FormsTables } from './tables.ts';

export type SubmissionRow = Omit<Selectable<FormSubmissionsTable>, 'tenant_id'>;
export type SubmissionOutcome = Pick<
  Updateable<FormSubmissionsTable>,
  'enrichment_state' | 'enrichment_failure' | 'person_id' | 'account_id'
>;

const COLUMNS = [
  'id',
  'page_id',
  'audience_id',
  'page_link_id',
  'session_id',
  'email',
  'fields',
  'submitted_at',
  'enrichment_state',
  'enrichment_failure',
  'person_id',
  'account_id',
] as const;

export async function insertSubmission(db: TenantDb<FormsTables>, row: SubmissionRow): Promise<void> {
  await db.insertInto('form_submissions', row).execute();
}

export function findSubmission(db: TenantDb<FormsTables>, id: string): Promise<SubmissionRow | undefined> {
  return db.selectFrom('form_submissions').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/**
 * Records how enrichment ended, only while the submission is still pending: false when another
 * run (a worker that took over an expired lease) settled it first.
 */
export async function settleSubmission(
  db: TenantDb<FormsTables>,
  id: string,
  outcome: SubmissionOutcome,
): Promise<boolean> {
  const result = await db
    .updateTable('form_submissions')
    .set(outcome)
    .where('id', '=', id)
    .where('enrichment_state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes, across tenants, the submissions made before `before`; answers how many. */
export async function deleteSubmissionsBefore(db: Kysely<FormsTables>, before: number): Promise<number> {
  const result = await db
    .deleteFrom('form_submissions')
    .where('submitted_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
