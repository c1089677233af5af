import type { TenantDb } from '../../db/tenant-db.ts';
import type { PageMetadata } from '../../http/page-metadata.ts';
import { contentColumn, metadataOverrideColumn } from './columns.ts';
import { metadataOverrideOf } from './presentation.ts';
import type { VersionContent } from './schema.ts';
import {
  type AudienceRow,
  findAudiencesOfPerson,
  findVersionsOfAudience,
  updateAudience,
  updateVersion,
} from './store.ts';

/*
 * What an audience and its versions say, read and replaced whole: the texts its client wrote (its
 * name, context and overrides) and those generation or an edit wrote (each version's copy, and the
 * snapshot of the context it was written from). A person's erasure rewrites them
 * (src/workflows/person-erasure).
 */

/** The texts of an audience that its client wrote. */
export interface AudienceWriting {
  customName: string | null;
  supplementaryContext: string | null;
  actionFormInstructionsOverride: string | null;
  actionUrlOverride: string | null;
  metadataOverride: PageMetadata | undefined;
}

/** The texts of one version: the context it was written from, and its copy (null before generation). */
export interface VersionWriting {
  versionId: string;
  versionNumber: number;
  supplementaryContext: string;
  content: VersionContent | null;
}

/** Every audience made for the person, archived ones too. */
export function audiencesOfPerson(db: TenantDb, personId: string): Promise<AudienceRow[]> {
  return findAudiencesOfPerson(db, personId);
}

export function writingOf(audience: AudienceRow): AudienceWriting {
  return {
    customName: audience.custom_name,
    supplementaryContext: audience.supplementary_context,
    actionFormInstructionsOverride: audience.action_form_instructions_override,
    actionUrlOverride: audience.action_url_override,
    metadataOverride: metadataOverrideOf(audience),
  };
}

/** The texts of every version of the audience, the baseline (version 0) first. */
export async function versionWritingOf(db: TenantDb, audienceId: string): Promise<VersionWriting[]> {
  return (await findVersionsOfAudience(db, audienceId)).map((row) => ({
    versionId: row.id,
    versionNumber: row.version_number,
    supplementaryContext: row.supplementary_context,
    content: row.content === null ? null : contentColumn.present(row.content),
  }));
}

/**
 * Makes the audience no longer a person's: it becomes the audience of `accountId` (everyone at
 * that company), or of anyone when null, and says `writing`.
 */
export async function reassignAudience(
  db: TenantDb,
  audienceId: string,
  { accountId, writing }: { accountId: string | null; writing: AudienceWriting },
  now: number,
): Promise<void> {
  await updateAudience(db, audienceId, {
    person_id: null,
    account_id: accountId,
    custom_name: writing.customName,
    supplementary_context: writing.supplementaryContext,
    action_form_instructions_override: writing.actionFormInstructionsOverride,
    action_url_override: writing.actionUrlOverride,
    metadata_override: writing.metadataOverride
      ? metadataOverrideColumn.store(writing.metadataOverride)
      : null,
    updated_at: now,
  });
}

/** Replaces what a version says; its state, timestamps and notes stay. */
export async function rewriteVersion(db: TenantDb, writing: VersionWriting): Promise<void> {
  await updateVersion(db, writing.versionId, {
    supplementary_context: writing.supplementaryContext,
    content: writing.content === null ? null : contentColumn.store(writing.content),
  });
}
