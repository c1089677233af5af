import type { Database } from '../db/connection.ts';

/**
 * What every job and scheduled task runs with. Anything else a kind of work needs (a personalizer,
 * file storage, delivery settings) it is given when its handler is made (see src/background.ts).
 */
export interface JobContext {
  database: Database;
  /** The moment the run started, in epoch milliseconds; tests pass a later one to travel in time. */
  now: number;
}

/**
 * Recurring work (purges and other sweeps) that runs every `everyMs` on one node at a time.
 * Sweeps run across every tenant: they are the one place that reads tenant rows without a
 * TenantDb, and they must scope every change they make by the rows' own tenant_id.
 */
export interface ScheduledTask {
  /** Unique and stable, `<what>.<verb>` like job kinds: it keys the task's schedule row. */
  name: string;
  everyMs: number;
  run(context: JobContext): Promise<void>;
  /** Whether it has work on `database` at all; a worker leaves out a task that never has. */
  neededOn?(database: Database): boolean;
}
