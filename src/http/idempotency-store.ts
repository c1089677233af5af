import type { ExpressionBuilder, Selectable } from 'kysely';
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
  /** When the claim's request last showed it was alive (http/idempotency.ts renews it while it runs). */
  locked_at: number;
  expires_at: number;
  /** The claim's own random value; only its holder may keep an answer or give the claim up. */
  claim_token: string | null;
}

type IdempotencyTables = { idempotency_keys: IdempotencyKeysTable };

export type IdempotencyRow = Omit<Selectable<IdempotencyKeysTable>, 'tenant_id'>;

/** A key as its claim's holder knows it. */
export interface Claim {
  scope: string;
  key: string;
  token: string;
}

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
    if (db.errors.isUniqueViolation(error)) return false;
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
      'claim_token',
    ])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Takes over a claim whose request died, as `claim`; false when another request took it first. */
export async function retakeKey(
  db: TenantDb<IdempotencyTables>,
  row: IdempotencyRow,
  claim: Claim,
  lockedAt: number,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ locked_at: lockedAt, claim_token: claim.token })
    .where('scope', '=', row.scope)
    .where('key', '=', row.key)
    .where('locked_at', '=', row.locked_at)
    .where('status_code', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The holder of `claim` is alive at `now`. */
export async function renewClaim(db: TenantDb<IdempotencyTables>, claim: Claim, now: number): Promise<void> {
  await db.updateTable('idempotency_keys').set({ locked_at: now }).where(heldBy(claim)).execute();
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

/** Keeps the answer to `claim`; false when the claim is no longer its holder's (a retry took it over). */
export async function saveResponse(
  db: TenantDb<IdempotencyTables>,
  claim: Claim,
  response: StoredResponse,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      status_code: response.statusCode,
      response_body: response.body,
      response_headers: JSON.stringify(response.headers),
    })
    .where(heldBy(claim))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives the key up without an answer, so that a retry runs again. */
export async function releaseKey(db: TenantDb<IdempotencyTables>, claim: Claim): Promise<void> {
  await db.deleteFrom('idempotency_keys').where(heldBy(claim)).execute();
}

/** The row of `claim` while its holder still has it and it has no answer. */
function heldBy(claim: Claim) {
  return (eb: ExpressionBuilder<IdempotencyTables, 'idempotency_keys'>) =>
    eb.and([
      eb('scope', '=', claim.scope),
      eb('key', '=', claim.key),
      eb('claim_token', '=', claim.token),
      eb('status_code', 'is', null),
    ]);
}
