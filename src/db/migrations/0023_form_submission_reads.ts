import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import { monotonicUlids } from './frozen/ulid-v1.ts';

/** The rows this step writes, as they are at this step. */
interface Tables {
  form_submissions: {
    id: string;
    tenant_id: string;
    enrichment_state: string;
    enrichment_failure: string | null;
  };
  jobs: {
    id: string;
    tenant_id: string;
    kind: string;
    payload: string;
    state: string;
    attempts: number;
    max_attempts: number;
    run_at: number;
    locked_by: string | null;
    locked_until: number | null;
    last_error: string | null;
    created_at: number;
    updated_at: number;
    finished_at: number | null;
  };
}

/** Jobs written per statement: well under either database's limit of bound parameters. */
const BATCH = 500;

/**
 * Form submissions become readable (`GET /v0/form_submissions`), and every valid address becomes a
 * lead. `enrichment_finished_at` says when enrichment ended (null while pending, and for the
 * submissions that ended before this step, whose moment was not kept). One index per filter of
 * the list, each ending in the id, so that a tenant's submissions of one page, one audience or one
 * enrichment state are read newest first from the index, a page costing the same at any depth.
 *
 * Free-mail addresses used to end enrichment (`free_mail_domain`); now they find or make their
 * person, without an account. The submissions that ended so are enriched again: back to pending,
 * each with a `submissions.enrich` job as submitting queues it (5 attempts).
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('form_submissions').addColumn('enrichment_finished_at', 'bigint').execute();
  for (const [name, column] of [
    ['form_submissions_by_page', 'page_id'],
    ['form_submissions_by_audience', 'audience_id'],
    ['form_submissions_by_enrichment', 'enrichment_state'],
  ] as const) {
    await db.schema.createIndex(name).on('form_submissions').columns(['tenant_id', column, 'id']).execute();
  }

  const typed = db as unknown as Kysely<Tables>;
  const submissions = await typed
    .selectFrom('form_submissions')
    .select(['id', 'tenant_id'])
    .where('enrichment_state', '=', 'failed')
    .where('enrichment_failure', '=', 'free_mail_domain')
    .execute();
  const now = Date.now();
  // Its own id maker, as every migration keeps its own code: job ids as they were made in 0023's time.
  const nextUlid = monotonicUlids();
  for (let start = 0; start < submissions.length; start += BATCH) {
    const jobs = submissions.slice(start, start + BATCH).map((submission) => ({
      id: `job_${nextUlid().toLowerCase()}`,
      tenant_id: submission.tenant_id,
      kind: 'submissions.enrich',
      payload: JSON.stringify({ formSubmissionId: submission.id }),
      state: 'queued',
      attempts: 0,
      max_attempts: 5,
      run_at: now,
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    }));
    await typed.insertInto('jobs').values(jobs).execute();
  }
  await typed
    .updateTable('form_submissions')
    .set({ enrichment_state: 'pending', enrichment_failure: null })
    .where('enrichment_state', '=', 'failed')
    .where('enrichment_failure', '=', 'free_mail_domain')
    .execute();
}
