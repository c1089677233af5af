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

export interface PersonsTables {
  persons: PersonsTable;
  person_logs: PersonLogsTable;
}
