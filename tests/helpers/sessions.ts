import { randomBytes } from 'node:crypto';
import type { SessionEvent } from '../../src/resources/sessions/schema.ts';
import type { Arm } from '../../src/resources/sessions/tables.ts';
import { recordVisit } from '../../src/workflows/visits/service.ts';
import type { LinkedPage } from './pages.ts';
import type { Client, TestServer } from './server.ts';

const DAY = 86_400_000;

/** Sessions to record: how many, how many of them converted (a CTA click), and when they started. */
export interface Sessions {
  count: number;
  converted: number;
  at: number;
}

/**
 * Records sessions of one arm of `site`'s audience, as the events endpoint records a visit's batch
 * (the visits workflow itself, so that a test can place them at any time and in either arm).
 */
export async function recordSessions(
  server: TestServer,
  client: Client,
  site: LinkedPage,
  arm: Arm,
  { count, converted, at }: Sessions,
): Promise<void> {
  const db = server.database.forTenant(client.tenantId);
  const session = (converts: boolean) => {
    const events: SessionEvent[] = [{ type: 'session_start', at }];
    if (converts) events.push({ type: 'cta_click', at, actionId: 'demo' });
    const visit = {
      sessionId: `seeded-${randomBytes(8).toString('hex')}`,
      pageId: site.pageId,
      audienceId: site.audienceId,
      pageLinkId: site.pageLinkId,
      arm,
    };
    return recordVisit(db, visit, events, at);
  };
  // A few dozen at a time: one at a time is slow on PostgreSQL, all at once crowds its pool.
  for (let from = 0; from < count; from += 25) {
    const batch = Array.from({ length: Math.min(25, count - from) }, (_, i) => from + i);
    await Promise.all(batch.map((i) => session(i < converted)));
  }
}

/** `count` sessions of one arm at the middle of each of the last `days` days, `converted` of each day's converting. */
export async function recordDailySessions(
  server: TestServer,
  client: Client,
  site: LinkedPage,
  arm: Arm,
  { days, count, converted }: { days: number; count: number; converted: number },
): Promise<void> {
  for (let day = 0; day < days; day++)
    await recordSessions(server, client, site, arm, { count, converted, at: Date.now() - (day + 0.5) * DAY });
}
