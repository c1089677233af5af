import type { JobHandler } from '../../jobs/queue.ts';
import { pendingSubmission } from '../../resources/forms/service.ts';
import type { EnrichmentProvider } from './provider.ts';
import { completeEnrichment, ENRICH_JOB, failEnrichment } from './service.ts';

/** Waits between attempts while a provider is failing: about 40 minutes in all over five attempts. */
const RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000];

/**
 * Enriches one form submission with `provider`. A rejection (no email, an invalid address) ends it
 * at once; a provider that throws is tried again by the job system, and when the last attempt fails
 * too the submission fails with `provider_error`. A worker that dies mid-way leaves the job to be
 * taken over when its lease runs out; a submission that is no longer pending is left alone, so a
 * run that repeats finished work changes nothing and emits nothing.
 */
export function enrichmentJob(provider: EnrichmentProvider): JobHandler<typeof ENRICH_JOB> {
  return {
    kind: ENRICH_JOB,
    retryDelayMs: (attempt) => RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? 1_800_000,
    async run(job) {
      const id = job.payload.formSubmissionId;
      const request = await pendingSubmission(job.db, id);
      if (!request) return;
      const result = await provider.enrich(request);
      if (result.outcome === 'rejected') return failEnrichment(job.db, id, result.reason);
      await completeEnrichment(job.db, id, result.submitter);
    },
    async onGiveUp(job) {
      await failEnrichment(job.db, job.payload.formSubmissionId, 'provider_error');
    },
  };
}
