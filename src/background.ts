import type { Config } from './config.ts';
import { pruneFinishedJobs } from './jobs/prune.ts';
import type { JobHandler } from './jobs/queue.ts';
import { foldRowCounts } from './jobs/row-counts.ts';
import type { ScheduledTask } from './jobs/types.ts';
import type { FileStorage } from './resources/files/storage.ts';
import { purgeDeletedPages } from './resources/pages/purge.ts';
import { deliveryJob } from './resources/webhooks/delivery.ts';
import { pruneEvents } from './resources/webhooks/prune.ts';
import { assetPurge } from './workflows/asset-purge/task.ts';
import { generationJob } from './workflows/audience-versions/generation.ts';
import { enrichmentJob } from './workflows/enrichment/job.ts';
import { builtInEnrichmentProvider } from './workflows/enrichment/provider.ts';
import { formRetention } from './workflows/enrichment/retention.ts';
import { chatCompletionsPersonalizer } from './workflows/personalization/model.ts';
import { builtInPersonalizer, type Personalizer } from './workflows/personalization/personalizer.ts';

export type BackgroundConfig = Pick<
  Config,
  | 'llmBaseUrl'
  | 'llmApiKey'
  | 'llmModel'
  | 'llmTimeoutMs'
  | 'webhookRetryScheduleMs'
  | 'webhookTimeoutMs'
  | 'webhookAllowPrivate'
  | 'formRetentionDays'
>;

/** Every kind of job the workers run, and every recurring task, each with what it needs. */
export interface BackgroundWork {
  handlers: JobHandler[];
  schedules: ScheduledTask[];
}

/** Versions are written by the built-in personalizer, or by a language model when one is configured. */
function personalizerFor(config: BackgroundConfig): Personalizer {
  if (!config.llmBaseUrl) return builtInPersonalizer;
  return chatCompletionsPersonalizer({
    baseUrl: config.llmBaseUrl,
    apiKey: config.llmApiKey,
    model: config.llmModel,
    timeoutMs: config.llmTimeoutMs,
  });
}

/** The service's background work, as the configuration says. */
export function backgroundWork(config: BackgroundConfig, storage: FileStorage): BackgroundWork {
  return {
    handlers: [
      generationJob(personalizerFor(config)),
      deliveryJob({
        retryScheduleMs: config.webhookRetryScheduleMs,
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivate,
      }),
      enrichmentJob(builtInEnrichmentProvider),
    ],
    schedules: [
      foldRowCounts,
      pruneFinishedJobs,
      purgeDeletedPages,
      assetPurge(storage),
      pruneEvents,
      formRetention(config.formRetentionDays),
    ],
  };
}
