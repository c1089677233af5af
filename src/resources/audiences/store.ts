import type { Selectable, Updateable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import { compiled, type TenantDb } from '../../db/tenant-db.ts';
import { UNFINISHED } from './lifecycle.ts';
import type { AudiencesTable, AudiencesTables, AudienceVersionsTable } from './tables.ts';

export type AudienceRow = Omit<Selectable<AudiencesTable>, 'tenant_id'>;
export type VersionRow = Omit<Selectable<AudienceVersionsTable>, 'tenant_id'>;
export type AudienceChanges = Omit<Updateable<AudiencesTable>, 'tenant_id' | 'id' | 'page_id' | 'created_at'>;
export type VersionChanges = Omit<Updateable<AudienceVersionsTable>, 'tenant_id' | 'id' | 'audience_id'>;

const AUDIENCE_COLUMNS = [
  'audiences.id',
  'audiences.page_id',
  'audiences.number',
  'audiences.custom_name',
  'audiences.person_id',
  'audiences.account_id',
  'audiences.is_new_page_agent',
  'audiences.action_form_id_override',
  'audiences.action_form_instructions_override',
  'audiences.action_url_override',
  'audiences.supplementary_context',
  'audiences.metadata_override',
  'audiences.auto_publish',
  'audiences.holdout_percent',
  'audiences.latest_version_id',
  'audiences.published_version_id',
  'audiences.created_at',
  'audiences.updated_at',
  'audiences.archived_at',
] as const;

const VERSION_COLUMNS = [
  'id',
  'audience_id',
  'version_number',
  'state',
  'is_new_page_agent',
  'supplementary_context',
  'content',
  'generated_by',
  'generation_note',
  'failure',
  'created_at',
  'queued_at',
  'processing_started_at',
  'became_draft_at',
  'published_at',
  'cancelled_at',
  'obsolete_at',
  'archived_at',
  'edited_at',
] as const;

function audiences(db: TenantDb<AudiencesTables>) {
  return db.selectFrom('audiences').select(AUDIENCE_COLUMNS);
}

export async function insertAudience(db: TenantDb<AudiencesTables>, row: AudienceRow): Promise<void> {
  await db.insertInto('audiences', row).execute();
}

export async function insertVersion(db: TenantDb<AudiencesTables>, row: VersionRow): Promise<void> {
  await db.insertInto('audience_versions', row).execute();
}

export async function nextAudienceNumber(db: TenantDb<AudiencesTables>, pageId: string): Promise<number> {
  const result = await db
    .selectFrom('audiences')
    .select((eb) => eb.fn.max('number').as('highest'))
    .where('page_id', '=', pageId)
    .executeTakeFirst();
  return Number(result?.highest ?? 0) + 1;
}

export function findAudience(
  db: TenantDb<AudiencesTables>,
  pageId: string,
  id: string,
): Promise<AudienceRow | undefined> {
  return audiences(db)
    .where('audiences.id', '=', id)
    .where('audiences.page_id', '=', pageId)
    .executeTakeFirst();
}

// Compiled (db/compiled.ts): read for every batch of a visitor's events.
const personOfId = compiled((db: TenantDb<AudiencesTables>, p: { id: string }) =>
  db.selectFrom('audiences').select('person_id').where('id', '=', p.id),
);

/** The person the audience is for, null for none; undefined when there is no such audience. */
export async function findPersonOfAudience(
  db: TenantDb<AudiencesTables>,
  id: string,
): Promise<string | null | undefined> {
  return (await db.first(personOfId, { id }))?.person_id;
}

export function findAudienceById(
  db: TenantDb<AudiencesTables>,
  id: string,
): Promise<AudienceRow | undefined> {
  return audiences(db).where('audiences.id', '=', id).executeTakeFirst();
}

/** Every audience made for the person, archived ones too. */
export function findAudiencesOfPerson(
  db: TenantDb<AudiencesTables>,
  personId: string,
): Promise<AudienceRow[]> {
  return audiences(db).where('audiences.person_id', '=', personId).execute();
}

/** Which audiences a list holds: a page's, a person's or an account's; all of the tenant's without any. */
export interface AudienceFilter {
  pageId?: string;
  personId?: string;
  accountId?: string;
}

export async function listAudiences(
  db: TenantDb<AudiencesTables>,
  filter: AudienceFilter,
  page: Paging,
): Promise<Paged<AudienceRow>> {
  let matching = db.selectFrom('audiences');
  if (filter.pageId) matching = matching.where('page_id', '=', filter.pageId);
  if (filter.personId) matching = matching.where('person_id', '=', filter.personId);
  if (filter.accountId) matching = matching.where('account_id', '=', filter.accountId);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(AUDIENCE_COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

export async function updateAudience(
  db: TenantDb<AudiencesTables>,
  id: string,
  changes: AudienceChanges,
): Promise<void> {
  await db.updateTable('audiences').set(changes).where('id', '=', id).execute();
}

export function findVersion(db: TenantDb<AudiencesTables>, id: string): Promise<VersionRow | undefined> {
  return db.selectFrom('audience_versions').select(VERSION_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findVersionByNumber(
  db: TenantDb<AudiencesTables>,
  audienceId: string,
  versionNumber: number,
): Promise<VersionRow | undefined> {
  return db
    .selectFrom('audience_versions')
    .select(VERSION_COLUMNS)
    .where('audience_id', '=', audienceId)
    .where('version_number', '=', versionNumber)
    .executeTakeFirst();
}

export function findVersions(db: TenantDb<AudiencesTables>, ids: string[]): Promise<VersionRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('audience_versions').select(VERSION_COLUMNS).where('id', 'in', ids).execute();
}

export async function updateVersion(
  db: TenantDb<AudiencesTables>,
  id: string,
  changes: VersionChanges,
): Promise<void> {
  await db.updateTable('audience_versions').set(changes).where('id', '=', id).execute();
}

/** Moves a version from one of `from` to new values; false when it was in another state. */
export async function moveVersion(
  db: TenantDb<AudiencesTables>,
  id: string,
  from: readonly VersionRow['state'][],
  changes: VersionChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('audience_versions')
    .set(changes)
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Replaces a draft's content as it was read (`previous`); false when it has changed since, or is no
 * longer a draft, so that no concurrent change is lost.
 */
export async function replaceDraftContent(
  db: TenantDb<AudiencesTables>,
  id: string,
  previous: string,
  changes: VersionChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('audience_versions')
    .set(changes)
    .where('id', '=', id)
    .where('state', '=', 'draft')
    .where('content', '=', previous)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Every version of the audience, the baseline first. */
export function findVersionsOfAudience(
  db: TenantDb<AudiencesTables>,
  audienceId: string,
): Promise<VersionRow[]> {
  return db
    .selectFrom('audience_versions')
    .select(VERSION_COLUMNS)
    .where('audience_id', '=', audienceId)
    .orderBy('version_number')
    .execute();
}

/** The versions whose generation is not over (lifecycle.ts). */
export function unfinishedVersions(db: TenantDb<AudiencesTables>, audienceId: string): Promise<VersionRow[]> {
  return db
    .selectFrom('audience_versions')
    .select(VERSION_COLUMNS)
    .where('audience_id', '=', audienceId)
    .where('state', 'in', UNFINISHED)
    .execute();
}

export async function highestVersionNumber(
  db: TenantDb<AudiencesTables>,
  audienceId: string,
): Promise<number> {
  const result = await db
    .selectFrom('audience_versions')
    .select((eb) => eb.fn.max('version_number').as('highest'))
    .where('audience_id', '=', audienceId)
    .executeTakeFirst();
  return Number(result?.highest ?? 0);
}

export async function listVersions(
  db: TenantDb<AudiencesTables>,
  audienceId: string,
  page: Paging,
): Promise<Paged<VersionRow>> {
  const matching = db.selectFrom('audience_versions').where('audience_id', '=', audienceId);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(VERSION_COLUMNS), 'version_number', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.version_number], total);
}

const idsOfPage = compiled((db: TenantDb<AudiencesTables>, p: { pageId: string }) =>
  db.selectFrom('audiences').select('id').where('page_id', '=', p.pageId).orderBy('id', 'desc'),
);

/** The ids of the page's audiences, archived ones too, newest first. */
export async function audienceIdsOf(db: TenantDb<AudiencesTables>, pageId: string): Promise<string[]> {
  return (await db.all(idsOfPage, { pageId })).map((row) => row.id);
}

/** The content of the audience's latest generated version before `versionNumber` that has content. */
export async function contentBefore(
  db: TenantDb<AudiencesTables>,
  audienceId: string,
  versionNumber: number,
): Promise<string | null> {
  const row = await db
    .selectFrom('audience_versions')
    .select('content')
    .where('audience_id', '=', audienceId)
    .where('version_number', '>', 0)
    .where('version_number', '<', versionNumber)
    .where('content', 'is not', null)
    .orderBy('version_number', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.content ?? null;
}
