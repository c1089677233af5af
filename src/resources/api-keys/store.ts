import type { Kysely, Selectable } from 'kysely';
import { compiledAcrossTenants } from '../../db/compiled.ts';
import type { ApiKeysTable, ApiKeysTables } from './tables.ts';

export type ApiKeyRow = Selectable<ApiKeysTable>;

// Keys are looked up before the tenant is known, so this store works on the whole database.

export function insertApiKey(db: Kysely<ApiKeysTables>, row: ApiKeyRow): Promise<unknown> {
  return db.insertInto('api_keys').values(row).execute();
}

/** Every authenticated request's lookup: compiled, run with its hash. */
const liveKeyByHash = compiledAcrossTenants((db: Kysely<ApiKeysTables>, p: { keyHash: string }) =>
  db.selectFrom('api_keys').selectAll().where('key_hash', '=', p.keyHash).where('revoked_at', 'is', null),
);

export function findLiveKeyByHash(
  db: Kysely<ApiKeysTables>,
  keyHash: string,
): Promise<ApiKeyRow | undefined> {
  return liveKeyByHash.first(db, { keyHash });
}

export function listKeysOfTenant(db: Kysely<ApiKeysTables>, tenantId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id', 'desc')
    .execute();
}

export async function revokeKey(
  db: Kysely<ApiKeysTables>,
  keyId: string,
  at: number,
): Promise<ApiKeyRow | undefined> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
  return db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
}
