import type { JobsTables } from '../jobs/tables.ts';
import type { AssetsTables } from '../resources/assets/tables.ts';
import type { AudiencesTables } from '../resources/audiences/tables.ts';
import type { FilesTables } from '../resources/files/tables.ts';
import type { FormsTables } from '../resources/forms/tables.ts';
import type { PageLinksTables } from '../resources/page-links/tables.ts';
import type { PagesTables } from '../resources/pages/tables.ts';
import type { SessionsTables } from '../resources/sessions/tables.ts';
import type { TopicsTables } from '../resources/topics/tables.ts';
import type { WebhooksTables } from '../resources/webhooks/tables.ts';

/**
 * Row types of every table, as Kysely sees them. Timestamps are Unix epoch milliseconds;
 * flags are 0/1 integers on both databases so that rows read the same from each.
 */
export interface TenantsTable {
  id: string;
  slug: string;
  name: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  key_hash: string;
  display_prefix: string;
  read_only: number;
  created_at: number;
  revoked_at: number | null;
}

export interface AccountsTable {
  id: string;
  tenant_id: string;
  domain: string;
  name: string | null;
  created_at: number;
  updated_at: number;
}

export interface PersonsTable {
  id: string;
  tenant_id: string;
  account_id: string | null;
  name: string;
  email: string | null;
  /** Lowercased email, unique per tenant. */
  email_key: string | null;
  domain: string | null;
  /** 1 when the domain was given, 0 when it was taken from the email. */
  domain_given: number;
  slug: string;
  phone_number: string | null;
  linkedin_profile_url: string | null;
  latest_activity_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface PersonLogsTable {
  id: string;
  tenant_id: string;
  person_id: string;
  kind: 'note' | 'activity';
  text: string;
  created_at: number;
  updated_at: number;
}

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

export interface DB
  extends PagesTables,
    TopicsTables,
    FilesTables,
    AssetsTables,
    JobsTables,
    AudiencesTables,
    WebhooksTables,
    PageLinksTables,
    SessionsTables,
    FormsTables {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  accounts: AccountsTable;
  persons: PersonsTable;
  person_logs: PersonLogsTable;
  idempotency_keys: IdempotencyKeysTable;
  tenant_row_counts: TenantRowCountsTable;
}

/** Rows per tenant of the tables that keep a counter (kept by triggers). */
export interface TenantRowCountsTable {
  tenant_id: string;
  name: string;
  n: number;
}

/** Tables whose every row belongs to one tenant: reachable only through a TenantDb. */
export type TenantTable = {
  [T in keyof DB]: DB[T] extends { tenant_id: string } ? T : never;
}[keyof DB];
