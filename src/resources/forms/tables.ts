/** Row types of the form tables. */

export type EnrichmentState = 'pending' | 'enriched' | 'failed';

export interface FormSubmissionsTable {
  id: string;
  tenant_id: string;
  page_id: string;
  audience_id: string;
  page_link_id: string;
  session_id: string | null;
  email: string | null;
  /** JSON object of the submitted fields. */
  fields: string;
  submitted_at: number;
  enrichment_state: EnrichmentState;
  enrichment_failure: string | null;
  person_id: string | null;
  account_id: string | null;
}

export type FormsTables = {
  form_submissions: FormSubmissionsTable;
};
