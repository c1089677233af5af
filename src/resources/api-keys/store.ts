import type { Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, DB } from '../../db/schema.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

// Keys are looked up before the tenant is known, so this store works on the whole database.

export function insertApiKey(db: Kysely<DB>, row: ApiKeyRow): Promise<unknown> {
  return db.insertInto('api_keys').values(row).execute();
}

export function findLiveKeyByHash(db: Kysely<DB>, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function listKeysOfTenant(db: Kysely<DB>, tenantId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id', 'desc')
    .execute();
}

export async function revokeKey(db: Kysely<DB>, keyId: string, at: number): Promise<ApiKeyRow | undefined> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}
