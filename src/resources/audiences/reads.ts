import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { notFound } from '../../shared/errors.ts';
import { contentColumn } from './columns.ts';
import { type AudienceSurroundings, presentAudience, presentVersionWithContent } from './presentation.ts';
import type { Audience, AudienceVersionWithContent, VersionContent } from './schema.ts';
import {
  type AudienceRow,
  contentBefore,
  findAudience,
  findAudienceById,
  findPersonOfAudience,
  findVersion,
  findVersionByNumber,
  findVersions,
  listVersions,
  type VersionRow,
} from './store.ts';

/** Queries others use as the store answers them. */
export { audienceIdsOf, findAudienceById, findVersion, listAudiences } from './store.ts';

/** Presents audiences with their latest and published versions, fetched in one query. */
export async function presentAudiences(
  db: TenantDb,
  rows: AudienceRow[],
  around: AudienceSurroundings,
): Promise<Audience[]> {
  const versions = await findVersions(
    db,
    rows.flatMap((row) => [row.latest_version_id, row.published_version_id]),
  );
  const byId = new Map(versions.map((version) => [version.id, version]));
  return rows.map((row) => presentAudience(row, byId, around));
}

export async function requireAudience(db: TenantDb, pageId: string, id: string): Promise<AudienceRow> {
  const row = await findAudience(db, pageId, id);
  if (!row) throw notFound(`Audience ${id} of page ${pageId}`);
  return row;
}

export async function latestVersionOf(db: TenantDb, audience: AudienceRow): Promise<VersionRow> {
  const [latest] = await findVersions(db, [audience.latest_version_id]);
  if (!latest) throw new Error(`Audience ${audience.id} lost its latest version`);
  return latest;
}

export async function requireVersion(
  db: TenantDb,
  audienceId: string,
  versionId: string,
): Promise<VersionRow> {
  const version = await findVersion(db, versionId);
  if (!version || version.audience_id !== audienceId)
    throw notFound(`Version ${versionId} of audience ${audienceId}`);
  return version;
}

/** One version of the audience, with its state and content; not found when it is not the audience's. */
export async function versionOf(
  db: TenantDb,
  audienceId: string,
  versionId: string,
): Promise<AudienceVersionWithContent> {
  return presentVersionWithContent(await requireVersion(db, audienceId, versionId));
}

export async function listVersionsOf(
  db: TenantDb,
  audience: AudienceRow,
  page: Paging,
): Promise<Paged<AudienceVersionWithContent>> {
  return mapPaged(await listVersions(db, audience.id, page), presentVersionWithContent);
}

/** What visitors of an audience see: the audience and its published version's content; none once archived. */
export async function publishedContent(
  db: TenantDb,
  audienceId: string,
): Promise<{ audience: AudienceRow; content: VersionContent } | undefined> {
  const audience = await findAudienceById(db, audienceId);
  if (!audience || audience.archived_at !== null) return undefined;
  const [published] = await findVersions(db, [audience.published_version_id]);
  if (!published?.content) return undefined;
  return { audience, content: contentColumn.present(published.content) };
}

/** Version 0 as stored, its id and content: the page unpersonalized, what the holdout of an audience is served. */
export async function storedBaseline(
  db: TenantDb,
  audienceId: string,
): Promise<{ versionId: string; content: VersionContent }> {
  const baseline = await findVersionByNumber(db, audienceId, 0);
  if (!baseline?.content) throw new Error(`Audience ${audienceId} lost its baseline`);
  return { versionId: baseline.id, content: contentColumn.present(baseline.content) };
}

/** The person an audience is for, null for none; undefined when there is no such audience. */
export async function personOfAudience(db: TenantDb, audienceId: string): Promise<string | null | undefined> {
  return findPersonOfAudience(db, audienceId);
}

/**
 * The content of the audience's last generated version before `version` (edited or not), which a
 * new version is an alternative to; null when there is none.
 */
export async function previousContent(db: TenantDb, version: VersionRow): Promise<VersionContent | null> {
  const content = await contentBefore(db, version.audience_id, version.version_number);
  return content === null ? null : contentColumn.present(content);
}
