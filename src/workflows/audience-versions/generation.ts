import type { TenantDb } from '../../db/tenant-db.ts';
import { overlayMetadata } from '../../http/page-metadata.ts';
import type { JobHandler } from '../../jobs/queue.ts';
import * as accounts from '../../resources/accounts/service.ts';
import type { AudienceRow } from '../../resources/audiences/service.ts';
import * as audiences from '../../resources/audiences/service.ts';
import * as pages from '../../resources/pages/service.ts';
import * as persons from '../../resources/persons/service.ts';
import * as topics from '../../resources/topics/service.ts';
import type { PersonalizationInput, Personalizer } from './personalizer.ts';
import { GENERATE_JOB, publishVersion, versionProcessed } from './service.ts';

const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

/** Who the audience is for and their account, as far as the tenant knows them. */
async function personAndAccount(db: TenantDb, personId: string | null) {
  const person =
    personId === null ? undefined : (await persons.personSummaries(db, [personId])).get(personId);
  const account =
    person?.accountId == null
      ? undefined
      : (await accounts.accountsByIds(db, [person.accountId])).get(person.accountId);
  return { person, account };
}

async function inputFor(db: TenantDb, audience: AudienceRow): Promise<PersonalizationInput> {
  const page = await pages.getPage(db, audience.page_id);
  const { person, account } = await personAndAccount(db, audience.person_id);
  return {
    page,
    audience: {
      name: audience.custom_name ?? person?.name ?? `Audience ${audience.number}`,
      supplementaryContext: audience.supplementary_context ?? '',
      isNewPageAgent: audience.is_new_page_agent === 1,
      actionUrlOverride: audience.action_url_override,
      metadata: overlayMetadata(page.metadata, audiences.metadataOverrideOf(audience)),
    },
    person: person ? { name: person.name } : null,
    account: account ? { name: account.name, domain: account.domain } : null,
    topics: await topics.topicsForPersonalization(db),
  };
}

/**
 * Generates one version with `personalizer`. queued or pending → processing → draft (→ published
 * with autoPublish), with `page.version.processed` (and `…published`). A failed attempt leaves the
 * version pending until its retry; after the last attempt it is cancelled. A worker that dies
 * mid-generation leaves the job to be taken over when its lease runs out, and the version, still
 * processing, is generated then: it never stays stuck.
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
      let content: Awaited<ReturnType<Personalizer['personalize']>>;
      try {
        content = await personalizer.personalize(await inputFor(db, audience));
      } catch (error) {
        await audiences.markPending(db, version.id, String(error));
        throw error;
      }
      await db.transaction(async (tx) => {
        const now = Date.now();
        const draft = await audiences.saveDraft(tx, version.id, content, now);
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
      await audiences.giveUpGenerating(job.db, job.payload.versionId, error.message);
    },
  };
}
