import type { Database } from '../../db/connection.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { Audience, VersionContent } from '../../resources/audiences/schema.ts';
import * as audiences from '../../resources/audiences/service.ts';
import type { Brand } from '../../resources/brands/schema.ts';
import * as brands from '../../resources/brands/service.ts';
import * as pageLinks from '../../resources/page-links/service.ts';
import type { Page } from '../../resources/pages/schema.ts';
import * as pages from '../../resources/pages/service.ts';
import type { Tenant } from '../../resources/tenants/service.ts';
import * as tenants from '../../resources/tenants/service.ts';
import type { Arm } from '../../shared/arm.ts';
import { AppError, invalidState } from '../../shared/errors.ts';
import type { Signer } from '../../shared/signing.ts';
import { getAudience } from '../audience-versions/service.ts';
import type { PageAddress } from './address.ts';
import { visitorArm } from './holdout.ts';

/** What a page shows: one version of an audience's page, in the page's brand. */
export interface PageShown {
  page: Page;
  audience: Audience;
  content: VersionContent;
  /** The profile of the page's brand; undefined when its brand id has none. */
  brand: Brand | undefined;
}

/** Everything a public page shows, resolved from its address and its visitor. */
export interface PageView extends PageShown {
  tenant: Tenant;
  db: TenantDb;
  link: { pageLinkId: string; audienceId: string };
  /** The arm the visitor is served; `content` is that arm's. */
  arm: Arm;
  /** The version whose content is shown: the published one, or version 0 for the baseline arm. */
  versionId: string;
  /** The visitor id the arm was chosen by, to keep in the visitor's cookie; none without a holdout. */
  visitorId: string | undefined;
}

/** Who asks for a public page: the visitor id from their cookie, read only when a holdout needs it. */
export interface Visitor {
  signer: Signer;
  visitorId: () => string | undefined;
}

/** The tenant a page address names: by its slug on the shared address, by its id for a tenant domain. */
export async function tenantOf(database: Database, address: PageAddress): Promise<Tenant | undefined> {
  const idOrSlug = address.kind === 'shared' ? address.tenantSlug : address.tenantId;
  const tenant = await tenants.getTenant(database.acrossTenants(), idOrSlug).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  });
  const named = address.kind === 'shared' ? tenant?.slug : tenant?.tenantId;
  return named === idOrSlug ? tenant : undefined;
}

/**
 * The share of the audience's visitors held out: a holdout applies once a version other than the
 * baseline is published; until then every visitor is served the published version.
 */
export function holdoutInEffect(audience: Audience): number {
  return audience.publishedVersion.versionNumber === 0 ? 0 : audience.holdoutPercent;
}

/**
 * The page served at an address (see address.ts): the live link at the path of that domain, its
 * audience (not archived) and that audience's published version, on a published page that is not
 * deleted; or the baseline, for a visitor in the audience's holdout. Undefined when any of them is
 * missing, so that every dead address answers the same 404.
 */
export async function resolvePageView(
  database: Database,
  address: PageAddress,
  visitor: Visitor,
): Promise<PageView | undefined> {
  const tenant = await tenantOf(database, address);
  if (!tenant) return undefined;
  const db = database.forTenant(tenant.tenantId);
  const tenantDomainId = address.kind === 'domain' ? address.tenantDomainId : null;
  const link = await pageLinks.liveLinkAt(db, address.path, tenantDomainId);
  const published = link ? await audiences.publishedContent(db, link.audienceId) : undefined;
  if (!link || !published) return undefined;
  const page = await pages.getPage(db, published.audience.page_id);
  if (page.status !== 'published' || page.deletedAt !== null) return undefined;
  const audience = await getAudience(db, page.pageId, published.audience.id);
  const brand = await brands.brandProfile(db, page.brandId);
  const { arm, visitorId } = visitorArm(
    visitor.signer,
    { audienceId: audience.audienceId, holdoutPercent: holdoutInEffect(audience) },
    visitor.visitorId,
  );
  const shown =
    arm === 'baseline'
      ? await audiences.storedBaseline(db, audience.audienceId)
      : { versionId: published.audience.published_version_id, content: published.content };
  return { tenant, db, link, page, audience, ...shown, brand, arm, visitorId };
}

/**
 * What a version of an audience's page shows, drafts included, for a preview: 404 for an unknown
 * page, audience or version; 409 for a version that has no content yet.
 */
export async function previewOf(
  db: TenantDb,
  pageId: string,
  audienceId: string,
  versionId: string,
): Promise<PageShown> {
  const audience = await getAudience(db, pageId, audienceId);
  const version = await audiences.versionOf(db, audienceId, versionId);
  if (version.content === null) {
    throw invalidState(`Version ${versionId} is ${version.state} and has no content to preview yet`);
  }
  const page = await pages.getPage(db, pageId);
  return { page, audience, content: version.content, brand: await brands.brandProfile(db, page.brandId) };
}
