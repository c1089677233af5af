import type { JobHandler } from '../../jobs/queue.ts';
import type { PageMetadata } from '../pages/schema.ts';
import { getPage } from '../pages/service.ts';
import { topicsForPersonalization } from '../topics/service.ts';
import { emitEvent } from '../webhooks/events.ts';
import type { PersonalizationInput } from './personalizer.ts';
import { effectiveMetadataOf, GENERATE_JOB, presentVersion, publishDraft } from './service.ts';
import { type AudienceWithPerson, findAudienceById, findVersion, moveVersion } from './store.ts';

const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

async function inputFor(job: { db: Parameters<typeof getPage>[0] }, audience: AudienceWithPerson) {
  const page = await getPage(job.db, audience.page_id);
  const override = audience.metadata_override
    ? (JSON.parse(audience.metadata_override) as PageMetadata)
    : undefined;
  const input: PersonalizationInput = {
    page,
    audience: {
      name: audience.custom_name ?? audience.person_name ?? `Audience ${audience.number}`,
      supplementaryContext: audience.supplementary_context ?? '',
      isNewPageAgent: audience.is_new_page_agent === 1,
      actionUrlOverride: audience.action_url_override,
      metadata: effectiveMetadataOf(page.metadata, override),
    },
    person: audience.person_name === null ? null : { name: audience.person_name },
    account:
      audience.account_domain === null
        ? null
        : { name: audience.account_name, domain: audience.account_domain },
    topics: await topicsForPersonalization(job.db),
  };
  return input;
}

/**
 * Generates one version. queued or pending → processing → draft (→ published with autoPublish).
 * A failed attempt leaves the version pending until its retry; after the last attempt it is
 * cancelled. A worker that dies mid-generation leaves the job to be taken over when its lease runs
 * out, and the version, still processing, is generated then: it never stays stuck.
 */
export const generateVersion: JobHandler<{ versionId: string }> = {
  kind: GENERATE_JOB,
  retryDelayMs: (attempt) => RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? 600_000,
  async run(job, context) {
    const { db } = job;
    const version = await findVersion(db, job.payload.versionId);
    if (!version) return;
    const started = await moveVersion(db, version.id, ['queued', 'pending', 'processing'], {
      state: 'processing',
      processing_started_at: version.processing_started_at ?? Date.now(),
    });
    const audience = started ? await findAudienceById(db, version.audience_id) : undefined;
    if (!audience) return;
    let content: Awaited<ReturnType<typeof context.personalizer.personalize>>;
    try {
      content = await context.personalizer.personalize(await inputFor(job, audience));
    } catch (error) {
      await moveVersion(db, version.id, ['processing'], { state: 'pending', failure: String(error) });
      throw error;
    }
    await db.transaction(async (tx) => {
      const now = Date.now();
      const drafted = await moveVersion(tx, version.id, ['processing'], {
        state: 'draft',
        content: JSON.stringify(content),
        became_draft_at: now,
        failure: null,
      });
      if (!drafted) return;
      const draft = (await findVersion(tx, version.id)) ?? version;
      await emitEvent(tx, 'page.version.processed', {
        pageId: audience.page_id,
        audienceId: audience.id,
        version: presentVersion(draft),
      });
      const current = await findAudienceById(tx, audience.id);
      if (
        current?.auto_publish === 1 &&
        current.archived_at === null &&
        current.latest_version_id === version.id
      ) {
        await publishDraft(tx, current, draft, now);
      }
    });
  },
  async onGiveUp(job, _context, error) {
    await moveVersion(job.db, job.payload.versionId, ['queued', 'pending', 'processing'], {
      state: 'cancelled',
      cancelled_at: Date.now(),
      failure: error.message,
    });
  },
};
