import { purgeDeletedPages } from '../resources/pages/purge.ts';
import { pruneFinishedJobs } from './prune.ts';
import type { JobHandler } from './queue.ts';
import type { ScheduledTask } from './types.ts';

/** Every kind of job the workers know how to run. */
export const JOB_HANDLERS: JobHandler[] = [];

/** Every recurring task, run by whichever worker claims it first. */
export const SCHEDULED_TASKS: ScheduledTask[] = [pruneFinishedJobs, purgeDeletedPages];
