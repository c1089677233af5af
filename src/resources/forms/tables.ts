/** Row types of the form tables. */

import type { Arm } from '../../shared/arm.ts';

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
  /**
   * What the visitor was served, from the page's token: the arm and the version. Null where it is not
   * known: the arm of a submission made before migration 0033 without a session that says it, and
   * the version of every submission made before then or through a page token signed before then.
   */
  arm: Arm | null;
  version_id: string | null;
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
