import type { Database } from './db/connection.ts';
import type { TenantDb } from './db/tenant-db.ts';
import * as accounts from './resources/accounts/service.ts';
import type { AssetFiles } from './resources/assets/service.ts';
import * as assets from './resources/assets/service.ts';
import * as audiences from './resources/audiences/service.ts';
import type { LogoCheck } from './resources/brands/service.ts';
import type { LinkSigner } from './resources/files/service.ts';
import * as files from './resources/files/service.ts';
import type { PageLinkNeeds } from './resources/page-links/service.ts';
import * as pageLinks from './resources/page-links/service.ts';
import type { ImageChecks } from './resources/pages/references.ts';
import { getPage } from './resources/pages/service.ts';
import type { AccountOfDomain, EraseTraces } from './resources/persons/service.ts';
import type { AudienceHoldout } from './resources/sessions/lift.ts';
import type { PageAudiences, PageCheck } from './resources/sessions/service.ts';
import type { TenantDomainNeeds } from './resources/tenant-domains/routes.ts';
import * as tenantDomains from './resources/tenant-domains/service.ts';
import type { TenantNeeds } from './resources/tenants/routes.ts';
import * as tenants from './resources/tenants/service.ts';
import { isAtOrUnder, type PagesOrigin } from './shared/pages-origin.ts';
import { holdoutOf } from './workflows/audience-versions/service.ts';
import { erasePersonTraces } from './workflows/person-erasure/service.ts';

/**
 * What each resource needs from the others. A resource never imports another: where one of its
 * rules needs another resource's answer (does this image file exist, which account has this
 * domain), it declares the question as a type in its own service, and the server answers it here
 * from the resource or workflow that knows. Every such link between resources is in this file.
 */
export interface ResourceNeeds {
  persons: { accountOf: AccountOfDomain; eraseTraces: EraseTraces };
  pages: { images: ImageChecks };
  assets: { files: AssetFiles };
  pageLinks: PageLinkNeeds;
  tenantDomains: TenantDomainNeeds;
  tenants: TenantNeeds;
  sessions: { page: PageCheck; audiences: PageAudiences; holdout: AudienceHoldout };
  brands: { checkLogo: LogoCheck };
}

/** What the answers draw on: the signer of links, the API's and the pages' addresses, the database. */
export interface Wiring extends LinkSigner {
  database: Database;
  pages: PagesOrigin;
}

export function resourceNeeds({ database, pages, ...links }: Wiring): ResourceNeeds {
  const slugOf = async (db: TenantDb) =>
    (await tenants.getTenant(database.acrossTenants(), db.tenantId)).slug;
  const apiHost = new URL(links.publicUrl).hostname;
  return {
    persons: { accountOf: accounts.accountIdForDomain, eraseTraces: erasePersonTraces },
    pages: { images: { assertImageFile: files.assertImageFile, assertLiveAsset: assets.assertLiveAsset } },
    assets: {
      files: {
        assertImageFile: files.assertImageFile,
        links: (db, fileIds) => files.fileLinks(db, links, fileIds),
      },
    },
    pageLinks: {
      assertTarget: audiences.assertLinkableAudience,
      assertDomain: tenantDomains.assertTenantDomain,
      prefixes: async (db, tenantDomainIds) => {
        const hostnames = await tenantDomains.hostnamesOf(db, tenantDomainIds);
        return {
          shared: pages.baseOf(await slugOf(db)),
          domains: new Map([...hostnames].map(([id, hostname]) => [id, `https://${hostname}`])),
        };
      },
    },
    tenantDomains: {
      linksOn: pageLinks.linksOnDomain,
      reserved: (hostname) => isAtOrUnder(hostname, apiHost) || pages.reservesHostname(hostname),
    },
    tenants: { pagesBase: (slug) => pages.baseOf(slug) },
    sessions: { page: getPage, audiences: audiences.audienceIdsOf, holdout: holdoutOf },
    brands: { checkLogo: assets.assertActiveImageAsset },
  };
}
