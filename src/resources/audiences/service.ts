import { type Page as ListPage, mapPage, type PageRequest } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidField, invalidState, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { enqueue } from '../../jobs/queue.ts';
import { toTimestamp } from '../../time.ts';
import type { PageMetadata } from '../pages/schema.ts';
import { getPage, requireLivePage } from '../pages/service.ts';
import { assertPersonExists } from '../persons/service.ts';
import { emitEvent } from '../webhooks/events.ts';
import { baselineContent } from './personalizer.ts';
import type {
  Audience,
  AudienceCreate,
  AudienceUpdate,
  AudienceVersion,
  AudienceVersionWithContent,
  VersionContent,
} from './schema.ts';
import {
  type AudienceChanges,
  type AudienceWithPerson,
  audienceIdsOf,
  findAudience,
  findAudienceById,
  findVersions,
  highestVersionNumber,
  insertAudience,
  insertVersion,
  listAudiences,
  listVersions,
  moveVersion,
  nextAudienceNumber,
  unfinishedVersions,
  updateAudience,
  updateVersion,
  type VersionRow,
} from './store.ts';

export const GENERATE_JOB = 'audience.generate';
const NUMBER_ATTEMPTS = 5;
const UNFINISHED: VersionRow['state'][] = ['queued', 'processing', 'pending'];

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

function presentVersionWithContent(row: VersionRow): AudienceVersionWithContent {
  return {
    ...presentVersion(row),
    state: row.state,
    content: row.content === null ? null : (JSON.parse(row.content) as VersionContent),
  };
}

function computedNameOf(row: AudienceWithPerson): string {
  if (row.person_name === null) return `Audience ${row.number}`;
  const company = row.account_name ?? row.account_domain;
  return company ? `${row.person_name} at ${company}` : row.person_name;
}

/** Page metadata overlaid field by field with the audience's override. */
export function effectiveMetadataOf(page: PageMetadata | undefined, override: PageMetadata | undefined) {
  if (!page && !override) return undefined;
  return { ...page, ...override };
}

function present(
  row: AudienceWithPerson,
  versions: Map<string, VersionRow>,
  pageMetadata: PageMetadata | undefined,
) {
  const latest = versions.get(row.latest_version_id);
  const published = versions.get(row.published_version_id);
  if (!latest || !published) throw new Error(`Audience ${row.id} lost a version`);
  const metadataOverride = row.metadata_override
    ? (JSON.parse(row.metadata_override) as PageMetadata)
    : undefined;
  const effectiveMetadata = effectiveMetadataOf(pageMetadata, metadataOverride);
  const computedName = computedNameOf(row);
  const audience: Audience = {
    audienceId: row.id,
    pageId: row.page_id,
    status: row.archived_at !== null ? 'archived' : latest.state,
    computedName,
    customName: row.custom_name,
    effectiveName: row.custom_name ?? computedName,
    isNewPageAgent: row.is_new_page_agent === 1,
    personId: row.person_id,
    personRouteKey: row.person_slug,
    actionFormIdOverride: row.action_form_id_override,
    actionFormInstructionsOverride: row.action_form_instructions_override,
    actionUrlOverride: row.action_url_override,
    supplementaryContext: row.supplementary_context,
    latestVersion: presentVersion(latest),
    publishedVersion: presentVersion(published),
    ...(effectiveMetadata ? { effectiveMetadata } : {}),
    ...(metadataOverride ? { metadataOverride } : {}),
    createdAt: toTimestamp(row.created_at),
    archivedAt: row.archived_at === null ? null : toTimestamp(row.archived_at),
  };
  return audience;
}

async function presentAll(db: TenantDb, rows: AudienceWithPerson[], pageMetadata: PageMetadata | undefined) {
  const versions = await findVersions(
    db,
    rows.flatMap((row) => [row.latest_version_id, row.published_version_id]),
  );
  const byId = new Map(versions.map((version) => [version.id, version]));
  return rows.map((row) => present(row, byId, pageMetadata));
}

async function requireAudience(db: TenantDb, pageId: string, id: string): Promise<AudienceWithPerson> {
  const row = await findAudience(db, pageId, id);
  if (!row) throw notFound(`Audience ${id} of page ${pageId}`);
  return row;
}

export async function getAudience(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  const page = await getPage(db, pageId);
  const [audience] = await presentAll(db, [await requireAudience(db, pageId, id)], page.metadata);
  return audience as Audience;
}

export async function listPageAudiences(
  db: TenantDb,
  pageId: string,
  request: PageRequest,
): Promise<ListPage<Audience>> {
  const page = await getPage(db, pageId);
  const rows = await listAudiences(db, pageId, request);
  return { ...rows, items: await presentAll(db, rows.items, page.metadata) };
}

function versionEvent(audience: { page_id: string; id: string }, version: VersionRow) {
  return { pageId: audience.page_id, audienceId: audience.id, version: presentVersion(version) };
}

/** Queues a version for generation: the job and the `page.version.created` event commit with it. */
async function queueVersion(
  tx: TenantDb,
  audience: { id: string; page_id: string; supplementary_context: string | null; is_new_page_agent: number },
  number: number,
  now: number,
): Promise<VersionRow> {
  const version: VersionRow = {
    id: newId('version'),
    audience_id: audience.id,
    version_number: number,
    state: 'queued',
    is_new_page_agent: audience.is_new_page_agent,
    supplementary_context: audience.supplementary_context ?? '',
    content: null,
    failure: null,
    created_at: now,
    queued_at: now,
    processing_started_at: null,
    became_draft_at: null,
    published_at: null,
    cancelled_at: null,
    obsolete_at: null,
    archived_at: null,
  };
  await insertVersion(tx, version);
  await enqueue(tx, GENERATE_JOB, { versionId: version.id }, { maxAttempts: 5 });
  await emitEvent(tx, 'page.version.created', versionEvent(audience, version));
  return version;
}

/**
 * Creates an audience with version 0, the page unpersonalized and published at once (no events),
 * and version 1, queued for generation.
 */
export async function createAudience(db: TenantDb, pageId: string, input: AudienceCreate): Promise<Audience> {
  const page = await requireLivePage(db, pageId);
  if (input.personId) {
    await assertPersonExists(db, input.personId).catch(() => {
      throw invalidField('/body/personId', `is not a person of your tenant: ${input.personId}`);
    });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const id = await db.transaction(async (tx) => {
        const now = Date.now();
        const audienceId = newId('audience');
        const baseline: VersionRow = {
          id: newId('version'),
          audience_id: audienceId,
          version_number: 0,
          state: 'published',
          is_new_page_agent: input.isNewPageAgent ? 1 : 0,
          supplementary_context: '',
          content: JSON.stringify(baselineContent(page)),
          failure: null,
          created_at: now,
          queued_at: null,
          processing_started_at: null,
          became_draft_at: null,
          published_at: now,
          cancelled_at: null,
          obsolete_at: null,
          archived_at: null,
        };
        const audience = {
          id: audienceId,
          page_id: pageId,
          number: await nextAudienceNumber(tx, pageId),
          custom_name: input.customName ?? null,
          person_id: input.personId ?? null,
          is_new_page_agent: input.isNewPageAgent ? 1 : 0,
          action_form_id_override: input.actionFormIdOverride ?? null,
          action_form_instructions_override: input.actionFormInstructionsOverride ?? null,
          action_url_override: input.actionUrlOverride ?? null,
          supplementary_context: input.supplementaryContext ?? null,
          metadata_override: input.metadataOverride ? JSON.stringify(input.metadataOverride) : null,
          auto_publish: input.autoPublish ? 1 : 0,
          latest_version_id: baseline.id,
          published_version_id: baseline.id,
          created_at: now,
          updated_at: now,
          archived_at: null,
        };
        await insertAudience(tx, audience);
        await insertVersion(tx, baseline);
        const first = await queueVersion(tx, audience, 1, now);
        await updateAudience(tx, audienceId, { latest_version_id: first.id });
        return audienceId;
      });
      return getAudience(db, pageId, id);
    } catch (error) {
      // Another audience of the page took the same number: count again.
      if (!db.dialect.isUniqueViolation(error) || attempt >= NUMBER_ATTEMPTS) throw error;
    }
  }
}

function assertNotArchived(audience: AudienceWithPerson): void {
  if (audience.archived_at !== null) throw invalidState(`Audience ${audience.id} is archived`);
}

/** Changes names, overrides and context; the versions are left as they are. */
export async function updateAudienceFields(
  db: TenantDb,
  pageId: string,
  id: string,
  input: AudienceUpdate,
): Promise<Audience> {
  const audience = await requireAudience(db, pageId, id);
  assertNotArchived(audience);
  const changes: AudienceChanges = { updated_at: Date.now() };
  if (input.customName !== undefined) changes.custom_name = input.customName;
  if (input.supplementaryContext !== undefined) changes.supplementary_context = input.supplementaryContext;
  if (input.isNewPageAgent !== undefined) changes.is_new_page_agent = input.isNewPageAgent ? 1 : 0;
  if (input.actionFormIdOverride !== undefined) changes.action_form_id_override = input.actionFormIdOverride;
  if (input.actionFormInstructionsOverride !== undefined) {
    changes.action_form_instructions_override = input.actionFormInstructionsOverride;
  }
  if (input.actionUrlOverride !== undefined) changes.action_url_override = input.actionUrlOverride;
  if (input.metadataOverride !== undefined) {
    changes.metadata_override =
      input.metadataOverride === null ? null : JSON.stringify(input.metadataOverride);
  }
  if (input.autoPublish !== undefined) changes.auto_publish = input.autoPublish ? 1 : 0;
  await updateAudience(db, id, changes);
  return getAudience(db, pageId, id);
}

async function cancelUnfinished(tx: TenantDb, audienceId: string, now: number): Promise<void> {
  for (const version of await unfinishedVersions(tx, audienceId)) {
    await moveVersion(tx, version.id, UNFINISHED, { state: 'cancelled', cancelled_at: now });
  }
}

/** Queues a new version from the audience as it is now; older unfinished versions are cancelled. */
export async function queueNewVersion(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  const audience = await requireAudience(db, pageId, id);
  assertNotArchived(audience);
  await db.transaction(async (tx) => {
    const now = Date.now();
    await cancelUnfinished(tx, id, now);
    const version = await queueVersion(tx, audience, (await highestVersionNumber(tx, id)) + 1, now);
    await updateAudience(tx, id, { latest_version_id: version.id, updated_at: now });
  });
  return getAudience(db, pageId, id);
}

/**
 * Publishes a draft version: it becomes what visitors see, the version it replaces becomes
 * obsolete, and `page.version.published` is emitted. False when the version is no longer a draft.
 */
export async function publishDraft(
  tx: TenantDb,
  audience: { id: string; page_id: string; published_version_id: string },
  version: VersionRow,
  now: number,
): Promise<boolean> {
  if (!(await moveVersion(tx, version.id, ['draft'], { state: 'published', published_at: now })))
    return false;
  if (audience.published_version_id !== version.id) {
    await updateVersion(tx, audience.published_version_id, { obsolete_at: now });
  }
  await updateAudience(tx, audience.id, { published_version_id: version.id, updated_at: now });
  await emitEvent(
    tx,
    'page.version.published',
    versionEvent(audience, { ...version, state: 'published', published_at: now }),
  );
  return true;
}

async function latestOf(db: TenantDb, audience: AudienceWithPerson): Promise<VersionRow> {
  const [latest] = await findVersions(db, [audience.latest_version_id]);
  if (!latest) throw new Error(`Audience ${audience.id} lost its latest version`);
  return latest;
}

/** Publishes the latest version when it is a draft; already published is unchanged; otherwise 409. */
export async function publishLatest(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  const audience = await requireAudience(db, pageId, id);
  assertNotArchived(audience);
  const latest = await latestOf(db, audience);
  if (latest.state !== 'published') {
    const published =
      latest.state === 'draft' &&
      (await db.transaction((tx) => publishDraft(tx, audience, latest, Date.now())));
    if (!published)
      throw invalidState(`The latest version of audience ${id} is ${latest.state}, not a draft`);
  }
  return getAudience(db, pageId, id);
}

/** Cancels the latest version while it is queued, processing or pending; already cancelled is unchanged. */
export async function cancelLatest(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  const audience = await requireAudience(db, pageId, id);
  assertNotArchived(audience);
  const latest = await latestOf(db, audience);
  if (latest.state !== 'cancelled') {
    const cancelled = await moveVersion(db, latest.id, UNFINISHED, {
      state: 'cancelled',
      cancelled_at: Date.now(),
    });
    if (!cancelled)
      throw invalidState(
        `The latest version of audience ${id} is ${latest.state}; only unfinished versions can be cancelled`,
      );
  }
  return getAudience(db, pageId, id);
}

/** Archives the audience with its latest and published versions, cancelling unfinished generation. */
export async function archiveAudience(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  const audience = await requireAudience(db, pageId, id);
  if (audience.archived_at === null) {
    await db.transaction(async (tx) => {
      const now = Date.now();
      await cancelUnfinished(tx, id, now);
      for (const versionId of new Set([audience.latest_version_id, audience.published_version_id])) {
        await updateVersion(tx, versionId, { archived_at: now });
      }
      await updateAudience(tx, id, { archived_at: now, updated_at: now });
    });
  }
  return getAudience(db, pageId, id);
}

export async function listAudienceVersions(
  db: TenantDb,
  pageId: string,
  id: string,
  page: PageRequest,
): Promise<ListPage<AudienceVersionWithContent>> {
  await requireAudience(db, pageId, id);
  return mapPage(await listVersions(db, id, page), presentVersionWithContent);
}

/** A page link may only target an audience of the tenant (400) that is not archived (409). */
export async function assertLinkableAudience(db: TenantDb, audienceId: string, path: string): Promise<void> {
  const audience = await findAudienceById(db, audienceId);
  if (!audience) throw invalidField(path, `is not an audience of your tenant: ${audienceId}`);
  if (audience.archived_at !== null)
    throw invalidState(`Audience ${audienceId} is archived; a link cannot target it`);
}

/** What visitors of an audience see: the audience and its published version's content; none once archived. */
export async function publishedView(
  db: TenantDb,
  audienceId: string,
): Promise<{ audience: Audience; content: VersionContent } | undefined> {
  const row = await findAudienceById(db, audienceId);
  if (!row || row.archived_at !== null) return undefined;
  const [published] = await findVersions(db, [row.published_version_id]);
  if (!published?.content) return undefined;
  return {
    audience: await getAudience(db, row.page_id, row.id),
    content: JSON.parse(published.content) as VersionContent,
  };
}

/** The person an audience is for, if any: their sessions are their activity. */
export async function personOfAudience(db: TenantDb, audienceId: string): Promise<string | null | undefined> {
  return (await findAudienceById(db, audienceId))?.person_id;
}

/** The ids of every audience of a page, archived ones too. */
export async function audienceIdsOfPage(db: TenantDb, pageId: string): Promise<string[]> {
  await getPage(db, pageId);
  return audienceIdsOf(db, pageId);
}
