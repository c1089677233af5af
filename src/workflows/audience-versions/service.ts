import type { Paged, Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { enqueue, type JobKind } from '../../jobs/queue.ts';
import * as accounts from '../../resources/accounts/service.ts';
import type {
  Audience,
  AudienceCreate,
  AudienceUpdate,
  AudienceVersionWithContent,
} from '../../resources/audiences/schema.ts';
import type {
  AudienceFilter,
  AudienceRow,
  AudienceSurroundings,
  VersionRow,
} from '../../resources/audiences/service.ts';
import * as audiences from '../../resources/audiences/service.ts';
import * as files from '../../resources/files/service.ts';
import type { Page } from '../../resources/pages/schema.ts';
import * as pages from '../../resources/pages/service.ts';
import * as persons from '../../resources/persons/service.ts';
import { AppError, invalidField, invalidState } from '../../shared/errors.ts';
import { emitEvent } from '../events/payloads.ts';
import { baselineContent } from '../personalization/compose.ts';

export const GENERATE_JOB = 'versions.generate' satisfies JobKind;

declare module '../../jobs/queue.ts' {
  interface JobPayloads {
    'versions.generate': { versionId: string };
  }
}
const GENERATE_ATTEMPTS = 5;

function presentIds(ids: (string | null)[]): string[] {
  return ids.filter((id): id is string => id !== null);
}

/** What audiences are shown with: their pages' metadata, and the persons and accounts they are for. */
async function surroundingsOf(
  db: TenantDb,
  pagesById: Map<string, Page>,
  rows: AudienceRow[],
): Promise<AudienceSurroundings> {
  const people = await persons.personSummaries(db, presentIds(rows.map((row) => row.person_id)));
  const accountIds = [...rows.map((row) => row.account_id), ...[...people.values()].map((p) => p.accountId)];
  const found = await accounts.accountsByIds(db, presentIds(accountIds));
  const companies = new Map([...found].map(([id, account]) => [id, account.name ?? account.domain]));
  return {
    pageMetadata: new Map([...pagesById].map(([id, page]) => [id, page.metadata])),
    persons: new Map(
      [...people].map(([id, { name, slug, accountId }]) => [
        id,
        { name, slug, company: (accountId && companies.get(accountId)) ?? null },
      ]),
    ),
    companies,
  };
}

async function show(db: TenantDb, pagesById: Map<string, Page>, rows: AudienceRow[]): Promise<Audience[]> {
  return audiences.presentAudiences(db, rows, await surroundingsOf(db, pagesById, rows));
}

async function showOne(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  const page = await pages.getPage(db, pageId);
  const [audience] = await show(db, new Map([[pageId, page]]), [
    await audiences.requireAudience(db, pageId, id),
  ]);
  return audience as Audience;
}

function versionEvent(audience: Pick<AudienceRow, 'page_id' | 'id'>, version: VersionRow) {
  return { pageId: audience.page_id, audienceId: audience.id, version: audiences.presentVersion(version) };
}

/** Queues the audience's next version: its generation job and `page.version.created` commit with it. */
async function queueVersion(tx: TenantDb, audience: AudienceRow, now: number): Promise<void> {
  const version = await audiences.addQueuedVersion(tx, audience, now);
  await enqueue(tx, GENERATE_JOB, { versionId: version.id }, { maxAttempts: GENERATE_ATTEMPTS });
  await emitEvent(tx, 'page.version.created', versionEvent(audience, version));
}

/**
 * Publishes a draft and emits `page.version.published`; false when the version is no longer a
 * draft. Call it in a transaction.
 */
export async function publishVersion(
  tx: TenantDb,
  audience: AudienceRow,
  version: VersionRow,
  now: number,
): Promise<boolean> {
  const published = await audiences.publishDraft(tx, audience, version, now);
  if (published) await emitEvent(tx, 'page.version.published', versionEvent(audience, published));
  return published !== undefined;
}

/** Emits `page.version.processed` for a version that has just become a draft. */
export async function versionProcessed(
  tx: TenantDb,
  audience: AudienceRow,
  draft: VersionRow,
): Promise<void> {
  await emitEvent(tx, 'page.version.processed', versionEvent(audience, draft));
}

/** Turns "no such thing" into a 400 at `path`: a body names something that is not the tenant's. */
function notFoundAs(path: string, what: string) {
  return (error: unknown): never => {
    if (error instanceof AppError && error.code === 'not_found')
      throw invalidField(path, `is not ${what} of your tenant`);
    throw error;
  };
}

/** An audience is for a person of the tenant, an account of the tenant, or anyone (400 otherwise). */
async function assertAudienceOf(db: TenantDb, input: AudienceCreate): Promise<void> {
  const { personId, accountId } = input;
  if (personId != null && accountId != null)
    throw invalidField('/body/accountId', "must be left out with personId: the audience is the person's");
  if (personId != null) {
    await persons.assertPersonExists(db, personId).catch(notFoundAs('/body/personId', 'a person'));
  }
  if (accountId != null) {
    await accounts.getAccountFields(db, accountId).catch(notFoundAs('/body/accountId', 'an account'));
  }
}

/** The image files an audience's metadata override names must be image files of the tenant (400). */
async function assertMetadataImages(db: TenantDb, input: AudienceCreate | AudienceUpdate): Promise<void> {
  for (const field of ['ogImageFileId', 'twitterImageFileId'] as const) {
    const fileId = input.metadataOverride?.[field];
    if (fileId) await files.assertImageFile(db, fileId, `/body/metadataOverride/${field}`);
  }
}

/**
 * Creates an audience with version 0, the page unpersonalized and published at once (no events),
 * and version 1, queued for generation. The page must be live (409) and the person one of the
 * tenant's (400).
 */
export async function createAudience(
  db: TenantDb,
  pageId: string,
  input: AudienceCreate,
  now: number,
): Promise<Audience> {
  const page = await pages.requireLivePage(db, pageId);
  await assertAudienceOf(db, input);
  const audience = await db.transaction(async (tx) => {
    await assertMetadataImages(tx, input);
    const created = await audiences.insertAudienceWithBaseline(tx, pageId, input, baselineContent(page), now);
    await queueVersion(tx, created, now);
    return created;
  });
  return showOne(db, pageId, audience.id);
}

export function getAudience(db: TenantDb, pageId: string, id: string): Promise<Audience> {
  return showOne(db, pageId, id);
}

export async function listPageAudiences(
  db: TenantDb,
  pageId: string,
  request: Paging,
): Promise<Paged<Audience>> {
  const page = await pages.getPage(db, pageId);
  const rows = await audiences.listAudiences(db, { pageId }, request);
  return { ...rows, items: await show(db, new Map([[pageId, page]]), rows.items) };
}

/**
 * Audiences across pages, newest first: the tenant's, or those made for one person or one account
 * (an account's means those for the whole company, not for one of its persons).
 */
export async function listAudiences(
  db: TenantDb,
  filter: Omit<AudienceFilter, 'pageId'>,
  request: Paging,
): Promise<Paged<Audience>> {
  const rows = await audiences.listAudiences(db, filter, request);
  const pagesById = await pages.pagesByIds(
    db,
    rows.items.map((row) => row.page_id),
  );
  return { ...rows, items: await show(db, pagesById, rows.items) };
}

export async function updateAudience(
  db: TenantDb,
  pageId: string,
  id: string,
  input: AudienceUpdate,
  now: number,
): Promise<Audience> {
  return db.transaction(async (tx) => {
    const audience = await audiences.requireAudience(tx, pageId, id);
    await assertMetadataImages(tx, input);
    await audiences.updateAudienceFields(tx, audience, input, now);
    // Read in the transaction: the answer is the audience as this write left it (decisions §2).
    return showOne(tx, pageId, id);
  });
}

/** Queues a new version from the audience as it is now; older unfinished versions are cancelled. */
export async function queueNewVersion(
  db: TenantDb,
  pageId: string,
  id: string,
  now: number,
): Promise<Audience> {
  const audience = await audiences.requireAudience(db, pageId, id);
  audiences.assertNotArchived(audience);
  await db.transaction(async (tx) => {
    await audiences.cancelUnfinished(tx, id, now);
    await queueVersion(tx, audience, now);
  });
  return showOne(db, pageId, id);
}

/** Publishes the latest version when it is a draft; already published is unchanged; otherwise 409. */
export async function publishLatest(
  db: TenantDb,
  pageId: string,
  id: string,
  now: number,
): Promise<Audience> {
  const audience = await audiences.requireAudience(db, pageId, id);
  audiences.assertNotArchived(audience);
  const latest = await audiences.latestVersionOf(db, audience);
  if (latest.state !== 'published') {
    const published =
      latest.state === 'draft' && (await db.transaction((tx) => publishVersion(tx, audience, latest, now)));
    if (!published)
      throw invalidState(`The latest version of audience ${id} is ${latest.state}, not a draft`);
  }
  return showOne(db, pageId, id);
}

/** Cancels the latest version while it is unfinished; already cancelled is unchanged; otherwise 409. */
export async function cancelLatest(db: TenantDb, pageId: string, id: string, now: number): Promise<Audience> {
  await audiences.cancelLatest(db, await audiences.requireAudience(db, pageId, id), now);
  return showOne(db, pageId, id);
}

/** Archives the audience (the contract's DELETE); archiving again returns it unchanged. */
export async function archiveAudience(
  db: TenantDb,
  pageId: string,
  id: string,
  now: number,
): Promise<Audience> {
  await audiences.archive(db, await audiences.requireAudience(db, pageId, id), now);
  return showOne(db, pageId, id);
}

export async function listAudienceVersions(
  db: TenantDb,
  pageId: string,
  id: string,
  page: Paging,
): Promise<Paged<AudienceVersionWithContent>> {
  return audiences.listVersionsOf(db, await audiences.requireAudience(db, pageId, id), page);
}

/** One version of the audience, with its content; not found when either is not the tenant's, or not the page's. */
export async function getAudienceVersion(
  db: TenantDb,
  pageId: string,
  audienceId: string,
  versionId: string,
): Promise<AudienceVersionWithContent> {
  await audiences.requireAudience(db, pageId, audienceId);
  return audiences.versionOf(db, audienceId, versionId);
}

/** The holdout share of an audience of the page; not found when either is not. */
export async function holdoutOf(db: TenantDb, pageId: string, audienceId: string): Promise<number> {
  await pages.getPage(db, pageId);
  return (await audiences.requireAudience(db, pageId, audienceId)).holdout_percent;
}
