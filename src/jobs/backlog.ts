import type { Database } from '../db/connection.ts';
import { queuedJobsByKind } from './store.ts';

export interface QueuedKind {
  kind: string;
  queued: number;
  /** When the earliest of them is due, epoch milliseconds. */
  earliestRunAt: number;
}

/**
 * Per kind, the jobs waiting to run (due or not) and when the earliest is due: the queue's backlog
 * as the metrics show it, read without the jobs' tables leaving src/jobs/.
 */
export function queueBacklog(database: Database): Promise<QueuedKind[]> {
  return queuedJobsByKind(database.acrossTenants());
}
