import type { Kysely } from 'kysely';

/**
 * Analytics of a period that ends now read the hour in progress from the audiences' hourly rollups
 * rather than from its sessions, which keep arriving (0.5–1.3 µs a session read, so an hour of a
 * busy page's sessions took tens of milliseconds): the tenant's rows of that hour, by this index,
 * one or three per audience with sessions in it. An hourly row's totals change with every batch; its
 * tenant and hour never do, so the index is written once per audience, arm and hour.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('audience_hourly_stats_by_hour')
    .on('audience_hourly_stats')
    .columns(['tenant_id', 'hour'])
    .execute();
}
