import type { Kysely, Selectable, Updateable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { EnrichmentState, FormSubmissionsTable, FormsTables } from './tables.ts';

export type SubmissionRow = Omit<Selectable<FormSubmissionsTable>, 'tenant_id'>;
export type SubmissionOutcome = Pick<
  Updateable<FormSubmissionsTable>,
  'enrichment_state' | 'enrichment_failure' | 'person_id' | 'account_id' | 'enrichment_finished_at'
>;

/** What the list keeps: each filter given narrows it. */
export interface SubmissionFilter {
  pageId?: string;
  audienceId?: string;
  enrichment?: EnrichmentState;
}

const COLUMNS = [
  'id',
  'page_id',
  'audience_id',
  'page_link_id',
  'session_id',
  'email',
  'fields',
  'submitted_at',
  'arm',
  'version_id',
  'enrichment_state',
  'enrichment_failure',
  'person_id',
  'account_id',
  'enrichment_finished_at',
] as const;

export async function insertSubmission(db: TenantDb<FormsTables>, row: SubmissionRow): Promise<void> {
  await db.insertInto('form_submissions', row).execute();
}

export function findSubmission(db: TenantDb<FormsTables>, id: string): Promise<SubmissionRow | undefined> {
  return db.selectFrom('form_submissions').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/**
 * The tenant's submissions, newest first. Each filter has an index of its own that ends in the id
 * (migration 0023), so one filter reads its page straight from that index at any depth.
 */
export async function listSubmissions(
  db: TenantDb<FormsTables>,
  filter: SubmissionFilter,
  page: Paging,
): Promise<Paged<SubmissionRow>> {
  let matching = db.selectFrom('form_submissions');
  if (filter.pageId) matching = matching.where('page_id', '=', filter.pageId);
  if (filter.audienceId) matching = matching.where('audience_id', '=', filter.audienceId);
  if (filter.enrichment) matching = matching.where('enrichment_state', '=', filter.enrichment);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
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

/**
 * Deletes the submissions that enrichment linked to the person or that carry their address
 * (`emailKey`, lowercased; compared with each address lowercased); answers their ids.
 */
export async function deleteSubmissionsOf(
  db: TenantDb<FormsTables>,
  of: { personId: string; emailKey: string | null },
): Promise<string[]> {
  const rows = await db
    .deleteFrom('form_submissions')
    .where((eb) =>
      eb.or([
        eb('person_id', '=', of.personId),
        ...(of.emailKey === null ? [] : [eb(eb.fn('lower', ['email']), '=', of.emailKey)]),
      ]),
    )
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}
