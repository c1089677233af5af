import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidField, invalidState } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { contentColumn, metadataOverrideColumn } from './columns.ts';
import { move, statesLeadingTo } from './lifecycle.ts';
import { presentVersionWithContent } from './presentation.ts';
import { latestVersionOf, requireVersion } from './reads.ts';
import type { AudienceCreate, AudienceUpdate, AudienceVersionWithContent, VersionContent } from './schema.ts';
import {
  type AudienceChanges,
  type AudienceRow,
  findAudienceById,
  findVersion,
  highestVersionNumber,
  insertAudience,
  insertVersion,
  moveVersion,
  nextAudienceNumber,
  replaceDraftContent,
  unfinishedVersions,
  updateAudience,
  updateVersion,
  type VersionChanges,
  type VersionRow,
} from './store.ts';
import type { VersionState } from './tables.ts';

export {
  type AudiencePerson,
  type AudienceSurroundings,
  metadataOverrideOf,
  presentVersion,
} from './presentation.ts';
export {
  audienceIdsOf,
  findAudienceById,
  findVersion,
  latestVersionOf,
  listAudiences,
  listVersionsOf,
  personOfAudience,
  presentAudiences,
  previousContent,
  publishedContent,
  requireAudience,
  storedBaseline,
  versionOf,
} from './reads.ts';
export type { AudienceFilter, AudienceRow, VersionRow } from './store.ts';
export {
  type AudienceWriting,
  audiencesOfPerson,
  reassignAudience,
  rewriteVersion,
  type VersionWriting,
  versionWritingOf,
  writingOf,
} from './writing.ts';

/**
 * Moves a version to `to` with `changes`, from whichever state the lifecycle allows it to come
 * from; false when it was in another (it moved meanwhile).
 */
function moveTo(db: TenantDb, versionId: string, to: VersionState, changes: VersionChanges = {}) {
  return moveVersion(db, versionId, statesLeadingTo(to), { ...changes, state: to });
}

export function assertNotArchived(audience: AudienceRow): void {
  if (audience.archived_at !== null) throw invalidState(`Audience ${audience.id} is archived`);
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
    content: baseline ? contentColumn.store(baseline) : null,
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
    metadata_override: input.metadataOverride ? metadataOverrideColumn.store(input.metadataOverride) : null,
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
export async function updateAudienceFields(
  db: TenantDb,
  audience: AudienceRow,
  input: AudienceUpdate,
  now: number,
): Promise<void> {
  assertNotArchived(audience);
  const changes: AudienceChanges = { updated_at: now };
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
      input.metadataOverride === null ? null : metadataOverrideColumn.store(input.metadataOverride);
  }
  if (input.autoPublish !== undefined) changes.auto_publish = input.autoPublish ? 1 : 0;
  if (input.holdoutPercent !== undefined) changes.holdout_percent = input.holdoutPercent;
  await updateAudience(db, audience.id, changes);
}

/**
 * Cancels every unfinished version of the audience (lifecycle.ts's UNFINISHED), with `note` as
 * their generation note when given.
 */
export async function cancelUnfinished(
  tx: TenantDb,
  audienceId: string,
  now: number,
  note?: string,
): Promise<void> {
  const changes: VersionChanges = note === undefined ? {} : { generation_note: note };
  for (const version of await unfinishedVersions(tx, audienceId)) {
    await moveTo(tx, version.id, 'cancelled', { ...changes, cancelled_at: now });
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
  if (!(await moveTo(tx, version.id, 'published', { published_at: now }))) return undefined;
  if (audience.published_version_id !== version.id) {
    await updateVersion(tx, audience.published_version_id, { obsolete_at: now });
  }
  await updateAudience(tx, audience.id, { published_version_id: version.id, updated_at: now });
  return { ...version, state: 'published', published_at: now };
}

/** Cancels the latest version while it is unfinished; already cancelled is unchanged; otherwise 409. */
export async function cancelLatest(db: TenantDb, audience: AudienceRow, now: number): Promise<void> {
  assertNotArchived(audience);
  const latest = await latestVersionOf(db, audience);
  if (latest.state === 'cancelled') return;
  const subject = `The latest version of audience ${audience.id}`;
  move(latest.state, 'cancelled', subject);
  if (!(await moveTo(db, latest.id, 'cancelled', { cancelled_at: now })))
    throw invalidState(`${subject} changed meanwhile; only unfinished versions can be cancelled`);
}

/** Archives the audience with its latest and published versions, cancelling unfinished generation. */
export async function archive(db: TenantDb, audience: AudienceRow, now: number): Promise<void> {
  if (audience.archived_at !== null) return;
  await db.transaction(async (tx) => {
    await cancelUnfinished(tx, audience.id, now);
    for (const versionId of new Set([audience.latest_version_id, audience.published_version_id])) {
      await updateVersion(tx, versionId, { archived_at: now });
    }
    await updateAudience(tx, audience.id, { archived_at: now, updated_at: now });
  });
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
  return { row: { ...row, content: row.content }, content: contentColumn.present(row.content) };
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
  const changes = { content: contentColumn.store(content), edited_at: now };
  if (!(await replaceDraftContent(db, row.id, row.content, changes))) return undefined;
  return presentVersionWithContent({ ...row, ...changes });
}

/** A page link may only target an audience of the tenant (400) that is not archived (409). */
export async function assertLinkableAudience(db: TenantDb, audienceId: string, path: string): Promise<void> {
  const audience = await findAudienceById(db, audienceId);
  if (!audience) throw invalidField(path, `is not an audience of your tenant: ${audienceId}`);
  if (audience.archived_at !== null)
    throw invalidState(`Audience ${audienceId} is archived; a link cannot target it`);
}

/*
 * Generation's side of a version: queued or pending → processing → draft, or pending again after a
 * failed attempt, or cancelled after the last (see lifecycle.ts).
 */

/** Starts an attempt; false when the version is no longer waiting for one (cancelled or done). */
export function startGenerating(db: TenantDb, version: VersionRow, now: number): Promise<boolean> {
  return moveTo(db, version.id, 'processing', {
    processing_started_at: version.processing_started_at ?? now,
  });
}

/** A failed attempt: the version waits for the next one, its note saying why. */
export async function markPending(db: TenantDb, versionId: string, note: string): Promise<void> {
  await moveTo(db, versionId, 'pending', { failure: note, generation_note: note });
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
  const drafted = await moveTo(tx, versionId, 'draft', {
    content: contentColumn.store(generated.content),
    generated_by: generated.generatedBy,
    generation_note: generated.note,
    became_draft_at: now,
    failure: null,
  });
  return drafted ? findVersion(tx, versionId) : undefined;
}

/** The version cannot be generated: it is cancelled, its note saying why. */
export async function giveUpGenerating(
  db: TenantDb,
  versionId: string,
  note: string,
  now: number,
): Promise<void> {
  await moveTo(db, versionId, 'cancelled', { cancelled_at: now, failure: note, generation_note: note });
}
