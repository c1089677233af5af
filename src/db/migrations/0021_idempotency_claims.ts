import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

interface KeptAnswer {
  tenant_id: string;
  scope: string;
  key: string;
  response_body: string;
}

/** `whsec_` and an asterisk for every other character of the secret. */
function masked(secret: string): string {
  const prefix = /^[a-z]+_/.exec(secret)?.[0] ?? '';
  return prefix + '*'.repeat(secret.length - prefix.length);
}

/**
 * Idempotency claims that a request can prove it still holds, and kept answers without secrets.
 *
 * `claim_token` is the claim's own random value: a request's answer is kept (in the transaction of
 * its writes) only where the token is still its own, so a request whose claim was taken over by a
 * retry, believing it abandoned, commits nothing. The answers kept before this migration of webhook
 * creates and secret rotations held the signing secret in plain text: it is masked, as every kept
 * answer now holds it.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await sql`ALTER TABLE idempotency_keys ADD COLUMN claim_token text`.execute(db);
  const { rows } = await sql<KeptAnswer>`
    SELECT tenant_id, scope, "key", response_body FROM idempotency_keys
    WHERE response_body LIKE ${'%"secret":"whsec%'}`.execute(db);
  for (const row of rows) {
    const body = JSON.parse(row.response_body) as { secret?: unknown };
    if (typeof body.secret !== 'string') continue;
    body.secret = masked(body.secret);
    await sql`
      UPDATE idempotency_keys SET response_body = ${JSON.stringify(body)}
      WHERE tenant_id = ${row.tenant_id} AND scope = ${row.scope} AND "key" = ${row.key}`.execute(db);
  }
}
