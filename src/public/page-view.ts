import type { Database } from '../db/connection.ts';
import { TenantDb } from '../db/tenant-db.ts';
import { AppError } from '../errors.ts';
import type { Audience, VersionContent } from '../resources/audiences/schema.ts';
import { publishedView } from '../resources/audiences/service.ts';
import type { PageLink } from '../resources/page-links/schema.ts';
import { liveLinkAt } from '../resources/page-links/service.ts';
import type { Page } from '../resources/pages/schema.ts';
import { getPage } from '../resources/pages/service.ts';
import { getTenant, type Tenant } from '../resources/tenants/service.ts';

/** Everything a public page shows, resolved from its address. */
export interface PageView {
  tenant: Tenant;
  db: TenantDb;
  link: PageLink;
  page: Page;
  audience: Audience;
  content: VersionContent;
}

/**
 * The page served at /p/{tenantSlug}{path}: the live link at the path, its audience (not archived)
 * and that audience's published version, on a published page that is not deleted. Undefined when
 * any of them is missing, so that every dead address answers the same 404.
 */
export async function resolvePageView(
  database: Database,
  tenantSlug: string,
  path: string,
): Promise<PageView | undefined> {
  const tenant = await getTenant(database.db, tenantSlug).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  });
  if (!tenant || tenant.slug !== tenantSlug) return undefined;
  const db = new TenantDb(tenant.tenantId, database.db, database.dialect);
  const link = await liveLinkAt(db, path);
  const view = link ? await publishedView(db, link.target.audienceId) : undefined;
  if (!link || !view) return undefined;
  const page = await getPage(db, view.audience.pageId);
  if (page.status !== 'published' || page.deletedAt !== null) return undefined;
  return { tenant, db, link, page, audience: view.audience, content: view.content };
}
