import { randomUUID } from 'node:crypto';
import type { Database } from '../db/connection.ts';
import type { Listening } from '../db/engine.ts';
import { JOBS_CHANNEL, type JobHandler, jobSignals, RetryAt, type RunningJob } from './queue.ts';
import {
  claimJobs,
  claimSchedule,
  ensureSchedule,
  extendLease,
  finishSchedule,
  type JobRow,
  renewSchedule,
  settleJob,
} from './store.ts';
import type { JobsTables } from './tables.ts';
import type { JobContext, ScheduledTask } from './types.ts';

export interface Logger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface WorkerOptions {
  database: Database;
  handlers: JobHandler[];
  schedules: ScheduledTask[];
  logger: Logger;
  /** Jobs run at once by this worker. */
  concurrency?: number;
  /**
   * How long to wait for work when there was none. Committed jobs wake the worker at once (see
   * `start`), so this bounds only what nothing announces: a retry coming due, a lease running out,
   * a scheduled task, a job enqueued while this worker could not hear of it.
   */
  pollMs?: number;
  /** A job's lease; renewed while it runs, so only a dead worker's jobs are taken over. */
  leaseMs?: number;
}

const BASE_RETRY_MS = 5_000;
const MAX_RETRY_MS = 60 * 60 * 1000;

function defaultRetryDelay(attempt: number): number {
  const delay = Math.min(MAX_RETRY_MS, BASE_RETRY_MS * 2 ** (attempt - 1));
  return Math.round(delay * (0.8 + Math.random() * 0.4));
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Runs due jobs and scheduled tasks. Any number of workers, in any number of processes, may share a
 * database: a job or a scheduled task is leased to one worker at a time, and the lease is renewed
 * while it runs, so it never runs twice at once; a worker that dies leaves its lease to run out and
 * another worker takes the job over.
 */
export class Worker {
  readonly id = `worker_${randomUUID()}`;
  private readonly handlers: Map<string, JobHandler>;
  /** The scheduled tasks that have work on this worker's database. */
  private readonly schedules: ScheduledTask[];
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly running = new Set<Promise<void>>();
  /** Scheduled tasks whose row this worker has made sure of; one insert each, not one per poll. */
  private readonly scheduled = new Set<string>();
  /** When this worker last looked for due scheduled tasks: once a poll, not at every wake-up. */
  private schedulesSeenAt = Number.NEGATIVE_INFINITY;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private listening: Listening | undefined;
  /** Ends the wait for the next poll, while the loop waits. */
  private wake: (() => void) | undefined;
  /** Set when there may be work (a job committed, a slot freed) since the last tick began. */
  private nudged = false;
  /** Kept even when it comes during a tick, which might have missed that work: the loop ticks again. */
  private readonly nudge = () => {
    this.nudged = true;
    this.wake?.();
  };

  constructor(private readonly options: WorkerOptions) {
    this.handlers = new Map(options.handlers.map((handler) => [handler.kind, handler]));
    this.schedules = options.schedules.filter((task) => task.neededOn?.(options.database) ?? true);
    this.concurrency = options.concurrency ?? 4;
    this.pollMs = options.pollMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 10_000;
  }

  /**
   * Runs until `stop`. A job committed in this process wakes the worker at once; one committed in
   * another process wakes it through the database's notifications (PostgreSQL); polling finds the
   * rest.
   */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    jobSignals.on('enqueued', this.nudge);
    this.listening = this.options.database.listen(JOBS_CHANNEL, this.nudge);
    this.loop = this.run();
  }

  /** Takes no new work, and waits for the jobs that are running to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    jobSignals.off('enqueued', this.nudge);
    this.wake?.();
    await Promise.all([this.listening?.close(), this.loop]);
    await Promise.all(this.running);
  }

  /**
   * Runs everything due until nothing is left, and waits for it: for tests and one-off runs. With
   * `now`, "due" is judged at that moment (to travel in time); without, at each round's clock, so
   * that work queued by the work itself runs too.
   */
  async drain(now?: number): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.tick(now ?? Date.now());
      await Promise.all(this.running);
      if (started === 0) return total;
      total += started;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.nudged = false;
      let started = 0;
      try {
        started = await this.tick(Date.now());
      } catch (error) {
        this.options.logger.error({ err: asError(error) }, 'worker tick failed');
      }
      if (started === 0 || this.running.size >= this.concurrency) await this.idle();
    }
  }

  /** Waits for the next poll, unless the worker was nudged meanwhile. */
  private idle(): Promise<void> {
    if (this.nudged || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), this.pollMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private async tick(now: number): Promise<number> {
    let started = 0;
    if (now - this.schedulesSeenAt >= this.pollMs) {
      this.schedulesSeenAt = now;
      for (const task of this.schedules) if (await this.startSchedule(task, now)) started++;
    }
    const free = this.concurrency - this.running.size;
    if (free <= 0) return started;
    const { database } = this.options;
    const jobs = await claimJobs(database.acrossTenants(), database.locks, this.id, free, now, this.leaseMs);
    for (const job of jobs) this.track(this.runJob(job));
    return started + jobs.length;
  }

  /**
   * Keeps `work` among the running until it ends, then nudges the loop: the slot it frees takes the
   * next due job at once, so that a backlog drains at full speed rather than a job per poll. Work
   * that could not even record its outcome (the database went away) is logged, not thrown: its
   * lease runs out and it runs again, whereas an unhandled rejection would end the process.
   */
  private track(work: Promise<void>): void {
    const tracked: Promise<void> = work
      .catch((error) => this.options.logger.error({ err: asError(error) }, 'could not settle work'))
      .finally(() => {
        this.running.delete(tracked);
        this.nudge();
      });
    this.running.add(tracked);
  }

  private async startSchedule(task: ScheduledTask, now: number): Promise<boolean> {
    const db = this.options.database.acrossTenants<JobsTables>();
    if (!this.scheduled.has(task.name)) {
      await ensureSchedule(db, task.name, now);
      this.scheduled.add(task.name);
    }
    if (!(await claimSchedule(db, task.name, this.id, now, this.leaseMs))) return false;
    this.track(
      this.withLease(
        () => renewSchedule(db, task.name, this.id, Date.now() + this.leaseMs),
        async () => {
          try {
            await task.run({ database: this.options.database, now });
          } catch (error) {
            this.options.logger.error({ err: asError(error), task: task.name }, 'scheduled task failed');
          } finally {
            await finishSchedule(db, task.name, this.id, now, now + task.everyMs);
          }
        },
      ),
    );
    return true;
  }

  /** Runs `work` while renewing the lease every third of its length. */
  private async withLease(renew: () => Promise<unknown>, work: () => Promise<void>): Promise<void> {
    const timer = setInterval(() => {
      renew().catch((error) => this.options.logger.warn({ err: asError(error) }, 'lease renewal failed'));
    }, this.leaseMs / 3);
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
  }

  private async runJob(row: JobRow): Promise<void> {
    const { database } = this.options;
    const handler = this.handlers.get(row.kind);
    const job: RunningJob = {
      id: row.id,
      tenantId: row.tenant_id,
      payload: JSON.parse(row.payload),
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      db: database.forTenant(row.tenant_id),
    };
    const context: JobContext = { database, now: Date.now() };
    await this.withLease(
      () => extendLease(database.acrossTenants(), row.id, this.id, Date.now() + this.leaseMs),
      async () => {
        try {
          if (!handler) throw new Error(`No handler for jobs of kind ${row.kind}`);
          await handler.run(job, context);
          await settleJob(database.acrossTenants(), row.id, this.id, { state: 'done', now: Date.now() });
        } catch (error) {
          await this.fail(job, handler, context, asError(error));
        }
      },
    );
  }

  private async fail(job: RunningJob, handler: JobHandler | undefined, context: JobContext, error: Error) {
    const db = this.options.database.acrossTenants<JobsTables>();
    const now = Date.now();
    const last = job.attempt >= job.maxAttempts;
    this.options.logger.warn({ err: error, jobId: job.id, attempt: job.attempt, last }, 'job attempt failed');
    if (last) {
      if (!(await settleJob(db, job.id, this.id, { state: 'failed', now, error: error.message }))) return;
      await handler
        ?.onGiveUp?.(job, context, error)
        .catch((cause) =>
          this.options.logger.error({ err: asError(cause), jobId: job.id }, 'giving up on a job failed'),
        );
      return;
    }
    const runAt =
      error instanceof RetryAt ? error.at : now + (handler?.retryDelayMs ?? defaultRetryDelay)(job.attempt);
    await settleJob(db, job.id, this.id, { state: 'queued', now, runAt, error: error.message });
  }
}
