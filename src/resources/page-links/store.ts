import { type Selectable, sql, type Updateable } from 'kysely';
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

/** The live link at `path` on a domain (null: the tenant's shared address). */
export function findLivePageLinkByPath(
  db: TenantDb<PageLinksTables>,
  path: string,
  tenantDomainId: string | null,
): Promise<PageLinkRow | undefined> {
  return (
    db
      .selectFrom('page_links')
      .select(COLUMNS)
      // As the unique index page_links_live_path names the domain, so that it serves this lookup.
      .where(sql`COALESCE(tenant_domain_id, '')`, '=', tenantDomainId ?? '')
      .where('path', '=', path)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()
  );
}

export function countLiveLinksOnDomain(
  db: TenantDb<PageLinksTables>,
  tenantDomainId: string,
): Promise<number> {
  return db.countRows(
    db
      .selectFrom('page_links')
      .where('tenant_domain_id', '=', tenantDomainId)
      .where('deleted_at', 'is', null),
  );
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
