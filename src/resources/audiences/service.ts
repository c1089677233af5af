import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { overlayMetadata, type PageMetadata } from '../../http/page-metadata.ts';
import { invalidField, invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { toTimestamp } from '../../shared/time.ts';
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
  type AudienceRow,
  audienceIdsOf,
  contentBefore,
  findAudience,
  findAudienceById,
  findVersion,
  findVersionByNumber,
  findVersions,
  highestVersionNumber,
  insertAudience,
  insertVersion,
  listAudiences,
  listVersions,
  moveVersion,
  nextAudienceNumber,
  replaceDraftContent,
  unfinishedVersions,
  updateAudience,
  updateVersion,
  type VersionRow,
} from './store.ts';
import type { VersionState } from './tables.ts';

export type { AudienceRow, VersionRow } from './store.ts';

const UNFINISHED: VersionState[] = ['queued', 'processing', 'pending'];

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
  pageMetadata: PageMetadata | undefined;
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

function presentVersionWithContent(row: VersionRow): AudienceVersionWithContent {
  return {
    ...presentVersion(row),
    state: row.state,
    content: row.content === null ? null : (JSON.parse(row.content) as VersionContent),
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
  return row.metadata_override ? (JSON.parse(row.metadata_override) as PageMetadata) : undefined;
}

function present(
  row: AudienceRow,
  versions: Map<string, VersionRow>,
  around: AudienceSurroundings,
): Audience {
  const latest = versions.get(row.latest_version_id);
  const published = versions.get(row.published_version_id);
  if (!latest || !published) throw new Error(`Audience ${row.id} lost a version`);
  const metadataOverride = metadataOverrideOf(row);
  const effectiveMetadata = overlayMetadata(around.pageMetadata, metadataOverride);
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
  return rows.map((row) => present(row, byId, around));
}

export async function requireAudience(db: TenantDb, pageId: string, id: string): Promise<AudienceRow> {
  const row = await findAudience(db, pageId, id);
  if (!row) throw notFound(`Audience ${id} of page ${pageId}`);
  return row;
}

export function assertNotArchived(audience: AudienceRow): void {
  if (audience.archived_at !== null) throw invalidState(`Audience ${audience.id} is archived`);
}

export function listAudienceRows(db: TenantDb, pageId: string, page: Paging): Promise<Paged<AudienceRow>> {
  return listAudiences(db, pageId, page);
}

/** A new version of the audience: the baseline (published at once, with its content) or one to generate. */
function newVersionRow(
  audience: Pick<AudienceRow, 'id' | 'supplementary_context' | 'is_new_page_agent'>,
  number: number,
  now: number,
  baseline?: VersionContent,
): VersionRow {
  return {
    id: newId('version'),
    audience_id: audience.id,
    version_number: number,
    state: baseline ? 'published' : 'queued',
    is_new_page_agent: audience.is_new_page_agent,
    supplementary_context: baseline ? '' : (audience.supplementary_context ?? ''),
    content: baseline ? JSON.stringify(baseline) : null,
    generated_by: null,
    generation_note: null,
    failure: null,
    created_at: now,
    queued_at: baseline ? null : now,
    processing_started_at: null,
    became_draft_at: null,
    published_at: baseline ? now : null,
    cancelled_at: null,
    obsolete_at: null,
    archived_at: null,
    edited_at: null,
  };
}

/**
 * Inserts an audience of the page with its version 0, the baseline: `baseline` is the page
 * unpersonalized, published at once. Call it in a transaction: its number within the page is the
 * next free one, chosen under a lock.
 */
export async function insertAudienceWithBaseline(
  tx: TenantDb,
  pageId: string,
  input: AudienceCreate,
  baseline: VersionContent,
  now: number,
): Promise<AudienceRow> {
  const id = newId('audience');
  const isNewPageAgent = input.isNewPageAgent ? 1 : 0;
  const version = newVersionRow(
    { id, supplementary_context: null, is_new_page_agent: isNewPageAgent },
    0,
    now,
    baseline,
  );
  await tx.lock(`audiences.number:${pageId}`);
  const audience: AudienceRow = {
    id,
    page_id: pageId,
    number: await nextAudienceNumber(tx, pageId),
    custom_name: input.customName ?? null,
    person_id: input.personId ?? null,
    account_id: input.accountId ?? null,
    is_new_page_agent: isNewPageAgent,
    action_form_id_override: input.actionFormIdOverride ?? null,
    action_form_instructions_override: input.actionFormInstructionsOverride ?? null,
    action_url_override: input.actionUrlOverride ?? null,
    supplementary_context: input.supplementaryContext ?? null,
    metadata_override: input.metadataOverride ? JSON.stringify(input.metadataOverride) : null,
    auto_publish: input.autoPublish ? 1 : 0,
    holdout_percent: input.holdoutPercent ?? 0,
    latest_version_id: version.id,
    published_version_id: version.id,
    created_at: now,
    updated_at: now,
    archived_at: null,
  };
  await insertAudience(tx, audience);
  await insertVersion(tx, version);
  return audience;
}

/**
 * Adds the audience's next version, queued for generation, and makes it the latest. Call it in the
 * transaction that enqueues its generation.
 */
export async function addQueuedVersion(
  tx: TenantDb,
  audience: AudienceRow,
  now: number,
): Promise<VersionRow> {
  const version = newVersionRow(audience, (await highestVersionNumber(tx, audience.id)) + 1, now);
  await insertVersion(tx, version);
  await updateAudience(tx, audience.id, { latest_version_id: version.id, updated_at: now });
  return version;
}

/** Changes names, overrides and context; the versions are left as they are. */
export async function updateAudienceFields(db: TenantDb, audience: AudienceRow, input: AudienceUpdate) {
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
  if (input.holdoutPercent !== undefined) changes.holdout_percent = input.holdoutPercent;
  await updateAudience(db, audience.id, changes);
}

/** Cancels every version of the audience still queued, processing or pending. */
export async function cancelUnfinished(tx: TenantDb, audienceId: string, now: number): Promise<void> {
  for (const version of await unfinishedVersions(tx, audienceId)) {
    await moveVersion(tx, version.id, UNFINISHED, { state: 'cancelled', cancelled_at: now });
  }
}

/**
 * Publishes a draft version: it becomes what visitors see, and the version it replaces becomes
 * obsolete. Answers the version as published, or undefined when it is no longer a draft.
 */
export async function publishDraft(
  tx: TenantDb,
  audience: Pick<AudienceRow, 'id' | 'published_version_id'>,
  version: VersionRow,
  now: number,
): Promise<VersionRow | undefined> {
  if (!(await moveVersion(tx, version.id, ['draft'], { state: 'published', published_at: now })))
    return undefined;
  if (audience.published_version_id !== version.id) {
    await updateVersion(tx, audience.published_version_id, { obsolete_at: now });
  }
  await updateAudience(tx, audience.id, { published_version_id: version.id, updated_at: now });
  return { ...version, state: 'published', published_at: now };
}

export async function latestVersionOf(db: TenantDb, audience: AudienceRow): Promise<VersionRow> {
  const [latest] = await findVersions(db, [audience.latest_version_id]);
  if (!latest) throw new Error(`Audience ${audience.id} lost its latest version`);
  return latest;
}

/** Cancels the latest version while it is queued, processing or pending; already cancelled is unchanged. */
export async function cancelLatest(db: TenantDb, audience: AudienceRow): Promise<void> {
  assertNotArchived(audience);
  const latest = await latestVersionOf(db, audience);
  if (latest.state === 'cancelled') return;
  const cancelled = await moveVersion(db, latest.id, UNFINISHED, {
    state: 'cancelled',
    cancelled_at: Date.now(),
  });
  if (!cancelled)
    throw invalidState(
      `The latest version of audience ${audience.id} is ${latest.state}; only unfinished versions can be cancelled`,
    );
}

/** Archives the audience with its latest and published versions, cancelling unfinished generation. */
export async function archive(db: TenantDb, audience: AudienceRow): Promise<void> {
  if (audience.archived_at !== null) return;
  await db.transaction(async (tx) => {
    const now = Date.now();
    await cancelUnfinished(tx, audience.id, now);
    for (const versionId of new Set([audience.latest_version_id, audience.published_version_id])) {
      await updateVersion(tx, versionId, { archived_at: now });
    }
    await updateAudience(tx, audience.id, { archived_at: now, updated_at: now });
  });
}

async function requireVersion(db: TenantDb, audienceId: string, versionId: string): Promise<VersionRow> {
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

/** A draft of the audience as stored, with its content: what an edit starts from. */
export interface Draft {
  row: VersionRow & { content: string };
  content: VersionContent;
}

/** A version of the audience that may be edited: not found when it is not the audience's, 409 unless a draft. */
export async function requireDraft(db: TenantDb, audienceId: string, versionId: string): Promise<Draft> {
  const row = await requireVersion(db, audienceId, versionId);
  if (row.state !== 'draft' || row.content === null)
    throw invalidState(`Version ${versionId} is ${row.state}; only a draft can be edited`);
  return { row: { ...row, content: row.content }, content: JSON.parse(row.content) as VersionContent };
}

/**
 * Stores the edited content of a draft, made from `draft` as it was read, and sets `editedAt`.
 * Undefined when the version has changed since (another edit), or is no longer a draft.
 */
export async function saveEdit(
  db: TenantDb,
  draft: Draft,
  content: VersionContent,
  now: number,
): Promise<AudienceVersionWithContent | undefined> {
  const { row } = draft;
  const changes = { content: JSON.stringify(content), edited_at: now };
  if (!(await replaceDraftContent(db, row.id, row.content, changes))) return undefined;
  return presentVersionWithContent({ ...row, ...changes });
}

export async function listVersionsOf(
  db: TenantDb,
  audience: AudienceRow,
  page: Paging,
): Promise<Paged<AudienceVersionWithContent>> {
  return mapPaged(await listVersions(db, audience.id, page), presentVersionWithContent);
}

/** A page link may only target an audience of the tenant (400) that is not archived (409). */
export async function assertLinkableAudience(db: TenantDb, audienceId: string, path: string): Promise<void> {
  const audience = await findAudienceById(db, audienceId);
  if (!audience) throw invalidField(path, `is not an audience of your tenant: ${audienceId}`);
  if (audience.archived_at !== null)
    throw invalidState(`Audience ${audienceId} is archived; a link cannot target it`);
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
  return { audience, content: JSON.parse(published.content) as VersionContent };
}

/** Version 0's content: the page unpersonalized, what the holdout of an audience is served. */
export async function baselineContent(db: TenantDb, audienceId: string): Promise<VersionContent> {
  const baseline = await findVersionByNumber(db, audienceId, 0);
  if (!baseline?.content) throw new Error(`Audience ${audienceId} lost its baseline`);
  return JSON.parse(baseline.content) as VersionContent;
}

/** The person an audience is for, null for none; undefined when there is no such audience. */
export async function personOfAudience(db: TenantDb, audienceId: string): Promise<string | null | undefined> {
  return (await findAudienceById(db, audienceId))?.person_id;
}

/** The ids of every audience of a page, archived ones too, newest first. */
export function audienceIdsOfPage(db: TenantDb, pageId: string): Promise<string[]> {
  return audienceIdsOf(db, pageId);
}

/*
 * Generation's side of a version: queued or pending → processing → draft, or pending again after a
 * failed attempt, or cancelled after the last.
 */

export function findAudienceOf(db: TenantDb, version: VersionRow): Promise<AudienceRow | undefined> {
  return findAudienceById(db, version.audience_id);
}

export function getVersionRow(db: TenantDb, id: string): Promise<VersionRow | undefined> {
  return findVersion(db, id);
}

/** Starts an attempt; false when the version is no longer waiting for one (cancelled or done). */
export function startGenerating(db: TenantDb, version: VersionRow): Promise<boolean> {
  return moveVersion(db, version.id, ['queued', 'pending', 'processing'], {
    state: 'processing',
    processing_started_at: version.processing_started_at ?? Date.now(),
  });
}

/** A failed attempt: the version waits for the next one, its note saying why. */
export async function markPending(db: TenantDb, versionId: string, note: string): Promise<void> {
  await moveVersion(db, versionId, ['processing'], {
    state: 'pending',
    failure: note,
    generation_note: note,
  });
}

/** What generation made of a version: its content, who wrote it, and why, when it fell back. */
export interface Generated {
  content: VersionContent;
  generatedBy: string;
  note: string | null;
}

/** Stores the generated content: the version becomes a draft. Undefined when it was no longer processing. */
export async function saveDraft(
  tx: TenantDb,
  versionId: string,
  generated: Generated,
  now: number,
): Promise<VersionRow | undefined> {
  const drafted = await moveVersion(tx, versionId, ['processing'], {
    state: 'draft',
    content: JSON.stringify(generated.content),
    generated_by: generated.generatedBy,
    generation_note: generated.note,
    became_draft_at: now,
    failure: null,
  });
  return drafted ? findVersion(tx, versionId) : undefined;
}

/** The version cannot be generated: it is cancelled, its note saying why. */
export async function giveUpGenerating(db: TenantDb, versionId: string, note: string): Promise<void> {
  await moveVersion(db, versionId, UNFINISHED, {
    state: 'cancelled',
    cancelled_at: Date.now(),
    failure: note,
    generation_note: note,
  });
}

/**
 * The content of the audience's last generated version before `version` (edited or not), which a
 * new version is an alternative to; null when there is none.
 */
export async function previousContent(db: TenantDb, version: VersionRow): Promise<VersionContent | null> {
  const content = await contentBefore(db, version.audience_id, version.version_number);
  return content === null ? null : (JSON.parse(content) as VersionContent);
}
