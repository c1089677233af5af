import * as accounts from './resources/accounts/service.ts';
import type { AssetFiles } from './resources/assets/service.ts';
import * as assets from './resources/assets/service.ts';
import * as audiences from './resources/audiences/service.ts';
import type { LogoCheck } from './resources/brands/service.ts';
import type { LinkSigner } from './resources/files/service.ts';
import * as files from './resources/files/service.ts';
import type { TargetCheck } from './resources/page-links/service.ts';
import type { ImageChecks } from './resources/pages/references.ts';
import type { AccountOfDomain } from './resources/persons/service.ts';
import type { AudienceHoldout } from './resources/sessions/lift.ts';
import type { PageAudiences } from './resources/sessions/service.ts';
import { audienceIdsOfPage, holdoutOf } from './workflows/audience-versions/service.ts';

/**
 * What each resource needs from the others. A resource never imports another: where one of its
 * rules needs another resource's answer (does this image file exist, which account has this
 * domain), it declares the question as a type in its own service, and the server answers it here
 * from the resource or workflow that knows. Every such link between resources is in this file.
 */
export interface ResourceNeeds {
  persons: { accountOf: AccountOfDomain };
  pages: { images: ImageChecks };
  assets: { files: AssetFiles };
  pageLinks: { assertTarget: TargetCheck };
  sessions: { audiences: PageAudiences; holdout: AudienceHoldout };
  brands: { checkLogo: LogoCheck };
}

export function resourceNeeds(links: LinkSigner): ResourceNeeds {
  return {
    persons: { accountOf: accounts.accountIdForDomain },
    pages: { images: { assertImageFile: files.assertImageFile, assertLiveAsset: assets.assertLiveAsset } },
    assets: {
      files: {
        assertImageFile: files.assertImageFile,
        links: (db, fileIds) => files.fileLinks(db, links, fileIds),
      },
    },
    pageLinks: { assertTarget: audiences.assertLinkableAudience },
    sessions: { audiences: audienceIdsOfPage, holdout: holdoutOf },
    brands: { checkLogo: assets.assertActiveImageAsset },
  };
}
