import { sql } from 'kysely';
import type { ScheduledTask } from '../../jobs/types.ts';

const KEPT_FOR_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Events and their delivery log are kept 30 days for inspection, then removed, across tenants; an
 * event with a delivery still pending stays until that delivery is through.
 */
export const pruneEvents: ScheduledTask = {
  name: 'events.prune',
  everyMs: 60 * 60 * 1000,
  async run({ database, now }) {
    await database.db
      .deleteFrom('events')
      .where('created_at', '<', now - KEPT_FOR_MS)
      .where(
        sql<boolean>`NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.state = 'pending')`,
      )
      .execute();
  },
};
