/** Row types of the form tables. */

export const ENRICHMENT_STATES = ['pending', 'enriched', 'failed'] as const;
export type EnrichmentState = (typeof ENRICHMENT_STATES)[number];

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
  /** When enrichment ended; null while pending, and for submissions that ended before migration 0023. */
  enrichment_finished_at: number | null;
}

export type FormsTables = {
  form_submissions: FormSubmissionsTable;
};
