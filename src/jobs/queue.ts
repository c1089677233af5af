import { EventEmitter } from 'node:events';
import type { TenantDb } from '../db/tenant-db.ts';
import { newId } from '../shared/ids.ts';
import type { JobsTables } from './tables.ts';
import type { JobContext } from './types.ts';

/** A job as its handler sees it. */
export interface RunningJob<P = unknown> {
  id: string;
  tenantId: string;
  payload: P;
  /** This attempt's number, from 1. */
  attempt: number;
  maxAttempts: number;
  /** The job's tenant, for everything the handler reads or changes. */
  db: TenantDb;
}

export interface JobHandler<P = unknown> {
  kind: string;
  run(job: RunningJob<P>, context: JobContext): Promise<void>;
  /** Wait before the next attempt after `attempt` failed; by default exponential with jitter. */
  retryDelayMs?(attempt: number): number;
  /** Runs once when the last attempt failed (the job is then `failed`). */
  onGiveUp?(job: RunningJob<P>, context: JobContext, error: Error): Promise<void>;
}

/** Thrown by a handler to be retried at a given moment (a Retry-After, say) rather than by its schedule. */
export class RetryAt extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

export interface EnqueueOptions {
  runAt?: number;
  maxAttempts?: number;
}

/** Tells workers in this process that a job was committed, so that they need not wait for their next poll. */
export const jobSignals = new EventEmitter();

/** The channel on which workers in other processes hear of committed jobs (Database.listen). */
export const JOBS_CHANNEL = 'tailor_jobs';

/**
 * Adds a job in the caller's transaction (transactional outbox): the job exists exactly when the
 * change that asked for it was committed. A job due now wakes the workers of every process once it
 * is committed, not before: a worker woken earlier would not see it yet and would then sleep a poll.
 */
export async function enqueue(
  db: TenantDb<JobsTables>,
  kind: string,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<string> {
  const now = Date.now();
  const id = newId('job');
  const runAt = options.runAt ?? now;
  await db
    .insertInto('jobs', {
      id,
      kind,
      payload: JSON.stringify(payload),
      state: 'queued',
      attempts: 0,
      max_attempts: options.maxAttempts ?? 5,
      run_at: runAt,
      locked_by: null,
      locked_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
    .execute();
  if (runAt <= now) {
    await db.notify(JOBS_CHANNEL);
    db.afterCommit(() => jobSignals.emit('enqueued'));
  }
  return id;
}
