import type { ScheduledTask } from '../../jobs/types.ts';
import { deleteEventsBefore } from './store.ts';

const KEPT_FOR_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Events and their delivery log are kept 30 days for inspection, then removed, across tenants; an
 * event with a delivery still pending stays until that delivery is through.
 */
export const pruneEvents: ScheduledTask = {
  name: 'events.prune',
  everyMs: 60 * 60 * 1000,
  async run({ database, now }) {
    await deleteEventsBefore(database.acrossTenants(), now - KEPT_FOR_MS);
  },
};
