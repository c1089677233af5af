import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { builtInPersonalizer, chatCompletionsPersonalizer } from '../resources/audiences/personalizer.ts';
import type { FileStorage } from '../resources/files/storage.ts';
import type { JobContext } from './types.ts';

/** What background work runs with, as the configuration says. */
export function createJobContext(
  config: Pick<
    Config,
    | 'llmBaseUrl'
    | 'llmApiKey'
    | 'llmModel'
    | 'webhookRetryScheduleMs'
    | 'webhookTimeoutMs'
    | 'webhookAllowPrivate'
  >,
  database: Database,
  storage: FileStorage,
): Omit<JobContext, 'now'> {
  return {
    database,
    storage,
    personalizer: config.llmBaseUrl
      ? chatCompletionsPersonalizer({
          baseUrl: config.llmBaseUrl,
          apiKey: config.llmApiKey,
          model: config.llmModel,
        })
      : builtInPersonalizer,
    webhooks: {
      retryScheduleMs: config.webhookRetryScheduleMs,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivate,
    },
  };
}
