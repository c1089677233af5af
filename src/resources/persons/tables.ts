/** Row types of the persons and person log tables. */
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

export type PersonLogKind = 'note' | 'activity';
/** Who wrote an entry's text: a user (a note), Tailor itself, or a visitor of a public page (a form). */
export type PersonLogSource = 'user' | 'service' | 'visitor';

export interface PersonLogsTable {
  id: string;
  tenant_id: string;
  person_id: string;
  kind: PersonLogKind;
  source: PersonLogSource;
  text: string;
  created_at: number;
  updated_at: number;
}

/**
 * A person's activity at an instant, staged on PostgreSQL by the trigger of a session's write
 * (migration 0032; the table is 0028's): the database moves the person's latest_activity_at
 * forward to it at the commit and drops it, so that concurrent batches of one person's audience do
 * not hold the person's row across their transactions. Nothing reads it.
 */
export interface PersonActivityChangesTable {
  tenant_id: string;
  person_id: string;
  at: number;
}

export interface PersonsTables {
  persons: PersonsTable;
  person_activity_changes: PersonActivityChangesTable;
  person_logs: PersonLogsTable;
}
