import type { ScheduledTask } from '../../jobs/types.ts';
import { purgeDeletedPages as purge } from './store.ts';

const KEPT_FOR_MS = 30 * 24 * 60 * 60 * 1000;

/** Deleted pages stay restorable for 30 days, then are erased with everything that hangs on them. */
export const purgeDeletedPages: ScheduledTask = {
  name: 'pages.purge',
  everyMs: 60 * 60 * 1000,
  async run({ database, now }) {
    await purge(database.acrossTenants(), now - KEPT_FOR_MS);
  },
};
