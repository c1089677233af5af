import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import { SEARCH_COUNT_CAP } from '../../db/search.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { PageStatus } from './schema.ts';
import type { PagesTable, PagesTables } from './tables.ts';

export type PageRow = Omit<Selectable<PagesTable>, 'tenant_id'>;
export type NewPageRow = Omit<Insertable<PagesTable>, 'tenant_id'>;
export type PageChanges = Omit<Updateable<PagesTable>, 'tenant_id' | 'id' | 'created_at'>;

export interface PageFilter {
  query?: string;
  status?: PageStatus;
}

const COLUMNS = [
  'pages.id',
  'pages.name',
  'pages.title',
  'pages.page_context',
  'pages.page_type',
  'pages.status',
  'pages.brand_id',
  'pages.actions',
  'pages.action_card_widgets',
  'pages.scripts',
  'pages.footer_links',
  'pages.header_action_id',
  'pages.metadata',
  'pages.created_at',
  'pages.updated_at',
  'pages.archived_at',
  'pages.deleted_at',
  'pages.audiences_count',
] as const;

export async function insertPage(db: TenantDb<PagesTables>, row: NewPageRow): Promise<void> {
  await db.insertInto('pages', row).execute();
}

export function findPage(db: TenantDb<PagesTables>, id: string): Promise<PageRow | undefined> {
  return db.selectFrom('pages').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findPages(db: TenantDb<PagesTables>, ids: string[]): Promise<PageRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('pages').select(COLUMNS).where('id', 'in', ids).execute();
}

export async function updatePage(db: TenantDb<PagesTables>, id: string, changes: PageChanges): Promise<void> {
  await db.updateTable('pages').set(changes).where('id', '=', id).execute();
}

function livePages(db: TenantDb<PagesTables>, filter: PageFilter) {
  let matching = db.selectFrom('pages').where('deleted_at', 'is', null);
  if (filter.query)
    matching = matching.where(
      db.search.substringMatch('pages', ['name', 'title'], filter.query, db.tenantId),
    );
  if (filter.status) matching = matching.where('status', '=', filter.status);
  return matching;
}

export async function listPages(
  db: TenantDb<PagesTables>,
  filter: PageFilter,
  page: Paging,
): Promise<Paged<PageRow>> {
  const matching = livePages(db, filter);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'pages.id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

/** The first `limit` matches, newest first, and how many match (null past the cap). */
export async function searchPages(db: TenantDb<PagesTables>, query: string | undefined, limit: number) {
  const matching = livePages(db, { query });
  const [rows, total] = await Promise.all([
    matching
      .select(['pages.id', 'pages.name', 'pages.audiences_count'])
      .orderBy('pages.id', 'desc')
      .limit(limit + 1)
      .execute(),
    db.countRows(matching, SEARCH_COUNT_CAP),
  ]);
  return { rows, total: total > SEARCH_COUNT_CAP ? null : total };
}

/** Erases pages deleted before `before`, across tenants; returns how many. */
export async function purgeDeletedPages(db: Kysely<PagesTables>, before: number): Promise<number> {
  const result = await db.deleteFrom('pages').where('deleted_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
