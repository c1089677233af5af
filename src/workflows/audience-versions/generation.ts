import type { TenantDb } from '../../db/tenant-db.ts';
import { overlayMetadata } from '../../http/page-metadata.ts';
import type { JobHandler } from '../../jobs/queue.ts';
import * as accounts from '../../resources/accounts/service.ts';
import type { AudienceRow, VersionRow } from '../../resources/audiences/service.ts';
import * as audiences from '../../resources/audiences/service.ts';
import * as brands from '../../resources/brands/service.ts';
import * as pages from '../../resources/pages/service.ts';
import * as logs from '../../resources/persons/log-service.ts';
import * as persons from '../../resources/persons/service.ts';
import * as topics from '../../resources/topics/service.ts';
import type { PersonalizationInput } from '../personalization/input.ts';
import { CannotGenerate, generateContent, type Personalizer } from '../personalization/personalizer.ts';
import { GENERATE_JOB, publishVersion, versionProcessed } from './service.ts';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];
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

/** The gather stage: everything a personalizer may draw on, and what it must not show. */
async function gather(
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

/**
 * Generates one version: gather, then the personalizer with the check stage (src/workflows/
 * personalization), then store. queued or pending → processing → draft (→ published with
 * autoPublish), with `page.version.processed` (and `…published`). A personalizer that cannot answer
 * now leaves the version pending until its retry, its note saying why; after the last attempt it is
 * cancelled, its note saying why. A version that cannot be written however often it is tried
 * (`CannotGenerate`) is cancelled at once. A worker that dies mid-generation leaves the job to be
 * taken over when its lease runs out, and the version, still processing, is generated then: it
 * never stays stuck.
 */
export function generationJob(personalizer: Personalizer): JobHandler<{ versionId: string }> {
  return {
    kind: GENERATE_JOB,
    retryDelayMs: (attempt) => RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? 600_000,
    async run(job) {
      const { db } = job;
      const version = await audiences.getVersionRow(db, job.payload.versionId);
      if (!version || !(await audiences.startGenerating(db, version))) return;
      const audience = await audiences.findAudienceOf(db, version);
      if (!audience) return;
      let generated: Awaited<ReturnType<typeof generateContent>>;
      try {
        generated = await generateContent(await gather(db, audience, version), personalizer);
      } catch (error) {
        if (error instanceof CannotGenerate) {
          await audiences.giveUpGenerating(db, version.id, error.message);
          return;
        }
        await audiences.markPending(
          db,
          version.id,
          `Attempt ${job.attempt} of ${job.maxAttempts} failed: ${messageOf(error)}`,
        );
        throw error;
      }
      await db.transaction(async (tx) => {
        const now = Date.now();
        const draft = await audiences.saveDraft(tx, version.id, generated, now);
        if (!draft) return;
        await versionProcessed(tx, audience, draft);
        const current = await audiences.findAudienceOf(tx, draft);
        if (
          current?.auto_publish === 1 &&
          current.archived_at === null &&
          current.latest_version_id === draft.id
        ) {
          await publishVersion(tx, current, draft, now);
        }
      });
    },
    async onGiveUp(job, _context, error) {
      await audiences.giveUpGenerating(
        job.db,
        job.payload.versionId,
        `Generation was given up after ${job.maxAttempts} attempts; the last failed: ${error.message}`,
      );
    },
  };
}
