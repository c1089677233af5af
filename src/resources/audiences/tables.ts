/** Row types of the audience tables. */

/** A version's life; an audience shows its latest version's state, or `archived`. */
export type VersionState = 'queued' | 'processing' | 'pending' | 'draft' | 'published' | 'cancelled';

export interface AudiencesTable {
  id: string;
  tenant_id: string;
  page_id: string;
  /** Its number within the page, from 1: "Audience N". */
  number: number;
  custom_name: string | null;
  person_id: string | null;
  /** The account an audience for a whole company is for; null for a person's audience or anyone's. */
  account_id: string | null;
  is_new_page_agent: number;
  action_form_id_override: string | null;
  action_form_instructions_override: string | null;
  action_url_override: string | null;
  supplementary_context: string | null;
  /** JSON PageMetadata. */
  metadata_override: string | null;
  auto_publish: number;
  /** The share (0-50) of the audience's visitors served version 0, the baseline, instead. */
  holdout_percent: number;
  latest_version_id: string;
  published_version_id: string;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
}

export interface AudienceVersionsTable {
  id: string;
  tenant_id: string;
  audience_id: string;
  version_number: number;
  state: VersionState;
  is_new_page_agent: number;
  supplementary_context: string;
  /** JSON VersionContent, once generated. */
  content: string | null;
  /** The personalizer that wrote the content; null for the baseline. */
  generated_by: string | null;
  /** Why the content is not the configured personalizer's (it fell back to the built-in one). */
  generation_note: string | null;
  failure: string | null;
  created_at: number;
  queued_at: number | null;
  processing_started_at: number | null;
  became_draft_at: number | null;
  published_at: number | null;
  cancelled_at: number | null;
  obsolete_at: number | null;
  archived_at: number | null;
  /** When its copy was last edited (a draft's, through the API); null while it is as generated. */
  edited_at: number | null;
}

export type AudiencesTables = {
  audiences: AudiencesTable;
  audience_versions: AudienceVersionsTable;
};
