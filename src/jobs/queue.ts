import { EventEmitter } from 'node:events';
import type { TenantDb } from '../db/tenant-db.ts';
import { newId } from '../shared/ids.ts';
import type { JobsTables } from './tables.ts';
import type { JobContext } from './types.ts';

/**
 * The payload of each kind of job, by kind. Empty here: the feature that defines a kind adds it by
 * module augmentation beside its handler, as the events' payloads are declared by their features:
 *
 *     declare module '../../jobs/queue.ts' {
 *       interface JobPayloads { 'versions.generate': { versionId: string } }
 *     }
 *
 * so that `enqueue` and each handler are checked against one another at compile time, while
 * jobs/ imports no feature.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the features' module augmentation
export interface JobPayloads {}

export type JobKind = keyof JobPayloads;

/** A job as its handler sees it. */
export interface RunningJob<K extends JobKind = JobKind> {
  id: string;
  tenantId: string;
  payload: JobPayloads[K];
  /** This attempt's number, from 1. */
  attempt: number;
  maxAttempts: number;
  /** The job's tenant, for everything the handler reads or changes. */
  db: TenantDb;
}

/** Runs the jobs of one kind. A handler of any kind is a `JobHandler` (of every kind), as the worker takes them. */
export interface JobHandler<K extends JobKind = JobKind> {
  kind: K;
  run(job: RunningJob<K>, context: JobContext): Promise<void>;
  /** Wait before the next attempt after `attempt` failed; by default exponential with jitter. */
  retryDelayMs?(attempt: number): number;
  /** Runs once when the last attempt failed (the job is then `failed`). */
  onGiveUp?(job: RunningJob<K>, context: JobContext, error: Error): Promise<void>;
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
export async function enqueue<K extends JobKind>(
  db: TenantDb<JobsTables>,
  kind: K,
  payload: JobPayloads[K],
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
