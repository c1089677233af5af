import type { JobHandler } from '../../jobs/queue.ts';
import * as audiences from '../../resources/audiences/service.ts';
import { CannotGenerate, generateContent, type Personalizer } from '../personalization/personalizer.ts';
import { gather } from './gather.ts';
import { GENERATE_JOB, publishVersion, versionProcessed } from './service.ts';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

/**
 * Generates one version: gather, then the personalizer with the check stage (src/workflows/
 * personalization), then store. queued or pending → processing → draft (→ published with
 * autoPublish), with `page.version.processed` (and `…published`). A personalizer that cannot answer
 * now leaves the version pending until its retry, its note saying why; after the last attempt it is
 * cancelled, its note saying why. A version that cannot be written however often it is tried
 * (`CannotGenerate`) is cancelled at once. A worker that dies mid-generation leaves the job to be
 * taken over when its lease runs out, and the version, still processing, is generated then: it
 * never stays stuck. The run starts at `context.now`; what generation made is stored at the clock
 * of the moment it is done, generation taking a while.
 */
export function generationJob(personalizer: Personalizer): JobHandler<typeof GENERATE_JOB> {
  return {
    kind: GENERATE_JOB,
    retryDelayMs: (attempt) => RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? 600_000,
    async run(job, { now }) {
      const { db } = job;
      const version = await audiences.findVersion(db, job.payload.versionId);
      if (!version || !(await audiences.startGenerating(db, version, now))) return;
      const audience = await audiences.findAudienceById(db, version.audience_id);
      if (!audience) return;
      let generated: Awaited<ReturnType<typeof generateContent>>;
      try {
        generated = await generateContent(await gather(db, audience, version), personalizer);
      } catch (error) {
        if (error instanceof CannotGenerate) {
          await audiences.giveUpGenerating(db, version.id, error.message, Date.now());
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
        const done = Date.now();
        const draft = await audiences.saveDraft(tx, version.id, generated, done);
        if (!draft) return;
        await versionProcessed(tx, audience, draft);
        const current = await audiences.findAudienceById(tx, draft.audience_id);
        if (
          current?.auto_publish === 1 &&
          current.archived_at === null &&
          current.latest_version_id === draft.id
        ) {
          await publishVersion(tx, current, draft, done);
        }
      });
    },
    async onGiveUp(job, { now }, error) {
      await audiences.giveUpGenerating(
        job.db,
        job.payload.versionId,
        `Generation was given up after ${job.maxAttempts} attempts; the last failed: ${error.message}`,
        now,
      );
    },
  };
}
