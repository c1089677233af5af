import { overlayMetadata, type PageMetadata } from '../../http/page-metadata.ts';
import { toTimestamp } from '../../shared/time.ts';
import { contentColumn, metadataOverrideColumn } from './columns.ts';
import type { Audience, AudienceVersion, AudienceVersionWithContent } from './schema.ts';
import type { AudienceRow, VersionRow } from './store.ts';

/** Who an audience is for, as other resources know them. */
export interface AudiencePerson {
  name: string;
  slug: string;
  /** Their account's name, else its domain; null without an account. */
  company: string | null;
}

/**
 * What an audience is shown with from around it: its page's metadata, and the persons and the
 * accounts (their name, else domain) audiences are for.
 */
export interface AudienceSurroundings {
  /** The metadata of each audience's page, by page id. */
  pageMetadata: Map<string, PageMetadata | undefined>;
  persons: Map<string, AudiencePerson>;
  companies: Map<string, string>;
}

function optionalTimestamps(row: VersionRow) {
  const entries = {
    becameDraftAt: row.became_draft_at,
    queuedAt: row.queued_at,
    publishedAt: row.published_at,
    cancelledAt: row.cancelled_at,
    obsoleteAt: row.obsolete_at,
    archivedAt: row.archived_at,
  };
  return Object.fromEntries(
    Object.entries(entries)
      .filter(([, value]) => value !== null)
      .map(([key, value]) => [key, toTimestamp(value as number)]),
  );
}

export function presentVersion(row: VersionRow): AudienceVersion {
  return {
    versionId: row.id,
    versionNumber: row.version_number,
    audienceId: row.audience_id,
    isNewPageAgent: row.is_new_page_agent === 1,
    supplementaryContext: row.supplementary_context,
    queueDurationMs:
      row.processing_started_at !== null && row.queued_at !== null
        ? row.processing_started_at - row.queued_at
        : 0,
    createdAt: toTimestamp(row.created_at),
    ...optionalTimestamps(row),
  };
}

export function presentVersionWithContent(row: VersionRow): AudienceVersionWithContent {
  return {
    ...presentVersion(row),
    state: row.state,
    content: row.content === null ? null : contentColumn.present(row.content),
    generatedBy: row.generated_by,
    generationNote: row.generation_note,
    editedAt: row.edited_at === null ? null : toTimestamp(row.edited_at),
  };
}

function computedNameOf(row: AudienceRow, around: AudienceSurroundings): string {
  const person = row.person_id === null ? undefined : around.persons.get(row.person_id);
  if (person) return person.company ? `${person.name} at ${person.company}` : person.name;
  const company = row.account_id === null ? undefined : around.companies.get(row.account_id);
  return company ?? `Audience ${row.number}`;
}

export function metadataOverrideOf(row: AudienceRow): PageMetadata | undefined {
  return row.metadata_override ? metadataOverrideColumn.present(row.metadata_override) : undefined;
}

/** An audience as the API shows it, given its latest and published versions among `versions`. */
export function presentAudience(
  row: AudienceRow,
  versions: Map<string, VersionRow>,
  around: AudienceSurroundings,
): Audience {
  const latest = versions.get(row.latest_version_id);
  const published = versions.get(row.published_version_id);
  if (!latest || !published) throw new Error(`Audience ${row.id} lost a version`);
  const metadataOverride = metadataOverrideOf(row);
  const effectiveMetadata = overlayMetadata(around.pageMetadata.get(row.page_id), metadataOverride);
  const person = row.person_id === null ? undefined : around.persons.get(row.person_id);
  const computedName = computedNameOf(row, around);
  return {
    audienceId: row.id,
    pageId: row.page_id,
    status: row.archived_at !== null ? 'archived' : latest.state,
    computedName,
    customName: row.custom_name,
    effectiveName: row.custom_name ?? computedName,
    isNewPageAgent: row.is_new_page_agent === 1,
    personId: row.person_id,
    accountId: row.account_id,
    personRouteKey: person?.slug ?? null,
    actionFormIdOverride: row.action_form_id_override,
    actionFormInstructionsOverride: row.action_form_instructions_override,
    actionUrlOverride: row.action_url_override,
    supplementaryContext: row.supplementary_context,
    holdoutPercent: row.holdout_percent,
    latestVersion: presentVersion(latest),
    publishedVersion: presentVersion(published),
    ...(effectiveMetadata ? { effectiveMetadata } : {}),
    ...(metadataOverride ? { metadataOverride } : {}),
    createdAt: toTimestamp(row.created_at),
    archivedAt: row.archived_at === null ? null : toTimestamp(row.archived_at),
  };
}
