import { pruneJobs } from './store.ts';
import type { ScheduledTask } from './types.ts';

const DAY = 24 * 60 * 60 * 1000;

/** Finished jobs are kept a while for inspection, then removed: done after 7 days, failed after 30. */
export const pruneFinishedJobs: ScheduledTask = {
  name: 'jobs.prune',
  everyMs: 60 * 60 * 1000,
  async run({ database, now }) {
    await pruneJobs(database.acrossTenants(), 'done', now - 7 * DAY);
    await pruneJobs(database.acrossTenants(), 'failed', now - 30 * DAY);
  },
};
