import type { TenantDb } from '../../db/tenant-db.ts';
import { overlayMetadata } from '../../http/page-metadata.ts';
import * as accounts from '../../resources/accounts/service.ts';
import type { AudienceRow, VersionRow } from '../../resources/audiences/service.ts';
import * as audiences from '../../resources/audiences/service.ts';
import * as brands from '../../resources/brands/service.ts';
import * as pages from '../../resources/pages/service.ts';
import * as logs from '../../resources/persons/log-service.ts';
import * as persons from '../../resources/persons/service.ts';
import * as topics from '../../resources/topics/service.ts';
import type { PersonalizationInput } from '../personalization/input.ts';

/** How much of a person's log guides a version. */
const NOTES_GATHERED = 20;

/** Who the audience is for: a person with their account when known, an account, or no one in particular. */
async function whoFor(db: TenantDb, audience: AudienceRow) {
  const person =
    audience.person_id === null
      ? undefined
      : (await persons.personSummaries(db, [audience.person_id])).get(audience.person_id);
  const accountId = person ? person.accountId : audience.account_id;
  const account =
    accountId === null ? undefined : (await accounts.accountsByIds(db, [accountId])).get(accountId);
  const notes =
    person && audience.person_id ? await logs.guidanceLogTexts(db, audience.person_id, NOTES_GATHERED) : [];
  return { person, account, notes };
}

/**
 * The gather stage: everything a personalizer may draw on for `version`, and what it must not show.
 * Generation writes the version from it; an edit of a version's copy is checked against the same.
 */
export async function gather(
  db: TenantDb,
  audience: AudienceRow,
  version: VersionRow,
): Promise<PersonalizationInput> {
  const page = await pages.getPage(db, audience.page_id);
  const [brand, otherBrands, brandTopics, who, previous] = await Promise.all([
    brands.brandProfile(db, page.brandId),
    brands.otherBrandNames(db, page.brandId),
    topics.topicsForBrand(db, page.brandId),
    whoFor(db, audience),
    audiences.previousContent(db, version),
  ]);
  return {
    page,
    brand,
    audience: {
      id: audience.id,
      actionUrlOverride: audience.action_url_override,
      metadata: overlayMetadata(page.metadata, audiences.metadataOverrideOf(audience)),
    },
    version: { variant: Math.max(0, version.version_number - 1), previous },
    person: who.person ? { name: who.person.name } : null,
    account: who.account ? { name: who.account.name, domain: who.account.domain } : null,
    topics: brandTopics.own,
    private: { context: audience.supplementary_context ?? '', notes: who.notes },
    foreign: { topics: brandTopics.others, brandNames: otherBrands },
  };
}
