import { purgeTrashedAssets } from '../resources/assets/purge.ts';
import { generateVersion } from '../resources/audiences/generation.ts';
import { enrichFormSubmission } from '../resources/forms/enrichment.ts';
import { purgeDeletedPages } from '../resources/pages/purge.ts';
import { deliverWebhook } from '../resources/webhooks/delivery.ts';
import { pruneEvents } from '../resources/webhooks/prune.ts';
import { pruneFinishedJobs } from './prune.ts';
import type { JobHandler } from './queue.ts';
import type { ScheduledTask } from './types.ts';

/** Every kind of job the workers know how to run. */
export const JOB_HANDLERS: JobHandler[] = [
  generateVersion as JobHandler,
  deliverWebhook as JobHandler,
  enrichFormSubmission as JobHandler,
];

/** Every recurring task, run by whichever worker claims it first. */
export const SCHEDULED_TASKS: ScheduledTask[] = [
  pruneFinishedJobs,
  purgeDeletedPages,
  purgeTrashedAssets,
  pruneEvents,
];
