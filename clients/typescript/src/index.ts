export { WebhookVerificationError } from 'standardwebhooks';
export { createTailorClient, type TailorClient, type TailorClientOptions } from './client.js';
export {
  TailorConnectionError,
  TailorError,
  TailorPathParameterError,
  TailorProblem,
  TailorTimeoutError,
} from './errors.js';
export { type ListItem, type ListPath, paginate } from './paginate.js';
export { type FetchResult, unwrap } from './problem.js';
export type { TailorRequestOptions } from './retries.js';
export type * from './schema.js';
export { VERSION } from './version.js';
export { type DeliveryHeaders, type TailorEvent, verifyWebhook } from './webhooks.js';
