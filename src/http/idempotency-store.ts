import type { Selectable } from 'kysely';
import type { TenantDb } from '../db/tenant-db.ts';

/** The responses kept for idempotent retries: one claim per tenant, scope and key. */
export interface IdempotencyKeysTable {
  tenant_id: string;
  scope: string;
  key: string;
  fingerprint: string;
  /** Null while the first request is still running. */
  status_code: number | null;
  response_body: string | null;
  response_headers: string | null;
  locked_at: number;
  expires_at: number;
}

type IdempotencyTables = { idempotency_keys: IdempotencyKeysTable };

export type IdempotencyRow = Omit<Selectable<IdempotencyKeysTable>, 'tenant_id'>;

export interface StoredResponse {
  statusCode: number;
  body: string;
  headers: Record<string, string>;
}

/** Inserts the claim; false when the key is already in use. */
export async function claimKey(db: TenantDb<IdempotencyTables>, row: IdempotencyRow): Promise<boolean> {
  try {
    await db.insertInto('idempotency_keys', row).execute();
    return true;
  } catch (error) {
    if (db.dialect.isUniqueViolation(error)) return false;
    throw error;
  }
}

export function findKey(
  db: TenantDb<IdempotencyTables>,
  scope: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select([
      'scope',
      'key',
      'fingerprint',
      'status_code',
      'response_body',
      'response_headers',
      'locked_at',
      'expires_at',
    ])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Takes over a claim whose request died; false when another request took it first. */
export async function retakeKey(
  db: TenantDb<IdempotencyTables>,
  row: IdempotencyRow,
  lockedAt: number,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ locked_at: lockedAt })
    .where('scope', '=', row.scope)
    .where('key', '=', row.key)
    .where('locked_at', '=', row.locked_at)
    .where('status_code', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteExpired(
  db: TenantDb<IdempotencyTables>,
  scope: string,
  key: string,
  now: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('expires_at', '<=', now)
    .execute();
}

export async function saveResponse(
  db: TenantDb<IdempotencyTables>,
  scope: string,
  key: string,
  response: StoredResponse,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      status_code: response.statusCode,
      response_body: response.body,
      response_headers: JSON.stringify(response.headers),
    })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

export async function releaseKey(db: TenantDb<IdempotencyTables>, scope: string, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('status_code', 'is', null)
    .execute();
}
