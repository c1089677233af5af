import type { Selectable, Updateable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { PageLinksTable, PageLinksTables } from './tables.ts';

export type PageLinkRow = Omit<Selectable<PageLinksTable>, 'tenant_id'>;
export type PageLinkChanges = Omit<Updateable<PageLinksTable>, 'tenant_id' | 'id' | 'created_at'>;

const COLUMNS = [
  'id',
  'path',
  'target_type',
  'audience_id',
  'tenant_domain_id',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

export async function insertPageLink(db: TenantDb<PageLinksTables>, row: PageLinkRow): Promise<void> {
  await db.insertInto('page_links', row).execute();
}

export function findPageLink(db: TenantDb<PageLinksTables>, id: string): Promise<PageLinkRow | undefined> {
  return db.selectFrom('page_links').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findLivePageLinkByPath(
  db: TenantDb<PageLinksTables>,
  path: string,
): Promise<PageLinkRow | undefined> {
  return db
    .selectFrom('page_links')
    .select(COLUMNS)
    .where('path', '=', path)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function updatePageLink(
  db: TenantDb<PageLinksTables>,
  id: string,
  changes: PageLinkChanges,
): Promise<void> {
  await db.updateTable('page_links').set(changes).where('id', '=', id).execute();
}

export async function listPageLinks(
  db: TenantDb<PageLinksTables>,
  filter: { audienceId?: string },
  page: Paging,
): Promise<Paged<PageLinkRow>> {
  let matching = db.selectFrom('page_links').where('deleted_at', 'is', null);
  if (filter.audienceId) matching = matching.where('audience_id', '=', filter.audienceId);
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}
