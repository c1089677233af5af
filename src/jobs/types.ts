import type { Database } from '../db/connection.ts';
import type { Personalizer } from '../resources/audiences/personalizer.ts';
import type { FileStorage } from '../resources/files/storage.ts';

/** What background work gets to work with. */
export interface JobContext {
  database: Database;
  storage: FileStorage;
  /** Writes audience versions: the built-in one, or a language model when one is configured. */
  personalizer: Personalizer;
  webhooks: {
    /** Waits before each retry of a failed delivery; a delivery is tried once more than it has entries. */
    retryScheduleMs: number[];
    timeoutMs: number;
    /** Lets receivers be on loopback and private networks (local development and tests). */
    allowPrivate: boolean;
  };
  /** The moment the run started, in epoch milliseconds; tests pass a later one to travel in time. */
  now: number;
}

/**
 * Recurring work (purges and other sweeps) that runs every `everyMs` on one node at a time.
 * Sweeps run across every tenant: they are the one place that reads tenant rows without a
 * TenantDb, and they must scope every change they make by the rows' own tenant_id.
 */
export interface ScheduledTask {
  /** Unique and stable: it keys the task's schedule row. */
  name: string;
  everyMs: number;
  run(context: JobContext): Promise<void>;
}
