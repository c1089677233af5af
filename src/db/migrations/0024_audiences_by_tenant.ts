import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/**
 * Audiences become readable across pages (`GET /v0/audiences`): a tenant's, or those made for one
 * person or one account, newest first. One index per way of reading, each ending in the id, so that
 * a page of the list is read from the index at any depth.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  for (const [name, columns] of [
    ['audiences_of_tenant', ['tenant_id', 'id']],
    ['audiences_of_tenant_person', ['tenant_id', 'person_id', 'id']],
    ['audiences_of_tenant_account', ['tenant_id', 'account_id', 'id']],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on('audiences')
      .columns([...columns])
      .execute();
  }
}
