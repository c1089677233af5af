import type { JobHandler } from '../../jobs/queue.ts';
import * as audiences from '../../resources/audiences/service.ts';
import { generateContent, type Personalizer } from '../personalization/personalizer.ts';
import { gather } from './gather.ts';
import { GENERATE_JOB, publishVersion, versionProcessed } from './service.ts';

const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

/**
 * Generates one version: gather, then the personalizer with the check stage (src/workflows/
 * personalization), then store. queued or pending → processing → draft (→ published with
 * autoPublish), with `page.version.processed` (and `…published`). A personalizer that cannot answer
 * now leaves the version pending until its retry; after the last attempt it is cancelled. A worker
 * that dies mid-generation leaves the job to be taken over when its lease runs out, and the version,
 * still processing, is generated then: it never stays stuck.
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
        generated = await generateContent(await gather(db, audience), personalizer);
      } catch (error) {
        await audiences.markPending(db, version.id, String(error));
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
      await audiences.giveUpGenerating(job.db, job.payload.versionId, error.message);
    },
  };
}
