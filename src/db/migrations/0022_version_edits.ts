import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/** When a draft's copy was last edited through the API; versions never edited keep null. */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('audience_versions').addColumn('edited_at', 'bigint').execute();
}
