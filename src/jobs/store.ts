import type { Kysely, Selectable } from 'kysely';
import type { Locks } from '../db/engine.ts';
import type { JobsTable, JobsTables } from './tables.ts';

// Workers serve every tenant, so this store works on the whole database; each job row carries its
// tenant, and handlers get a TenantDb for it.

export type JobRow = Selectable<JobsTable>;

/**
 * Takes up to `limit` jobs that are due, or whose lease ran out, and leases them to `worker`.
 * Each job is taken by one worker only: one UPDATE … RETURNING, with SKIP LOCKED on PostgreSQL.
 */
export function claimJobs(
  db: Kysely<JobsTables>,
  locks: Locks,
  worker: string,
  limit: number,
  now: number,
  leaseMs: number,
): Promise<JobRow[]> {
  const claimable = locks.skipLocked(
    db
      .selectFrom('jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]),
          eb.and([eb('state', '=', 'running'), eb('locked_until', '<', now)]),
        ]),
      )
      .orderBy('run_at')
      .limit(limit),
  );
  return db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      locked_by: worker,
      locked_until: now + leaseMs,
      attempts: eb('attempts', '+', 1),
      updated_at: now,
    }))
    .where('id', 'in', claimable)
    .returningAll()
    .execute();
}

/** Keeps the lease of a job that is still running; false when the worker lost it. */
export async function extendLease(
  db: Kysely<JobsTables>,
  id: string,
  worker: string,
  until: number,
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Ends the attempt: `done`, `failed`, or back to `queued` for a retry at `runAt`. */
export async function settleJob(
  db: Kysely<JobsTables>,
  id: string,
  worker: string,
  outcome: { state: 'done' | 'failed' | 'queued'; now: number; runAt?: number; error?: string },
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      state: outcome.state,
      locked_by: null,
      locked_until: null,
      updated_at: outcome.now,
      ...(outcome.runAt === undefined ? {} : { run_at: outcome.runAt }),
      ...(outcome.error === undefined ? {} : { last_error: outcome.error }),
      ...(outcome.state === 'queued' ? {} : { finished_at: outcome.now }),
    })
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes finished jobs that finished before `before`. */
export async function pruneJobs(
  db: Kysely<JobsTables>,
  state: 'done' | 'failed',
  before: number,
): Promise<void> {
  await db.deleteFrom('jobs').where('state', '=', state).where('finished_at', '<', before).execute();
}

export async function ensureSchedule(
  db: Kysely<JobsTables>,
  name: string,
  firstRunAt: number,
): Promise<void> {
  await db
    .insertInto('schedules')
    .values({ name, next_run_at: firstRunAt, locked_by: null, locked_until: null, last_run_at: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** Takes a due scheduled task for `worker`; false when it is not due or another node has it. */
export async function claimSchedule(
  db: Kysely<JobsTables>,
  name: string,
  worker: string,
  now: number,
  leaseMs: number,
) {
  const result = await db
    .updateTable('schedules')
    .set({ locked_by: worker, locked_until: now + leaseMs })
    .where('name', '=', name)
    .where('next_run_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Keeps the lease of a scheduled task that is still running. */
export async function renewSchedule(
  db: Kysely<JobsTables>,
  name: string,
  worker: string,
  until: number,
): Promise<void> {
  await db
    .updateTable('schedules')
    .set({ locked_until: until })
    .where('name', '=', name)
    .where('locked_by', '=', worker)
    .execute();
}

export async function finishSchedule(
  db: Kysely<JobsTables>,
  name: string,
  worker: string,
  ranAt: number,
  nextRunAt: number,
) {
  await db
    .updateTable('schedules')
    .set({ locked_by: null, locked_until: null, last_run_at: ranAt, next_run_at: nextRunAt })
    .where('name', '=', name)
    .where('locked_by', '=', worker)
    .execute();
}

/** Per kind, the jobs waiting to run (due or not) and the earliest time one of them is due. */
export function queuedJobsByKind(
  db: Kysely<JobsTables>,
): Promise<{ kind: string; queued: number; earliestRunAt: number }[]> {
  return db
    .selectFrom('jobs')
    .where('state', '=', 'queued')
    .groupBy('kind')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number>().as('queued'),
      eb.fn.min<number>('run_at').as('earliestRunAt'),
    ])
    .execute();
}
