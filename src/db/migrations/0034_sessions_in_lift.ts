import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * Whether a session counts toward its audience's lift (docs/analytics.md#what-counts-toward-lift):
 * 1, or 0 for a session its client address started beyond its arm's share of the visitors the
 * address may stand for. Such a session still counts in analytics: its rollups are kept under the
 * arm `none`, which the running totals sum with the others and the lift does not read. Every
 * session started before counted, and stays so (its rollups are under its arm already).
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('in_lift', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
