export { WebhookVerificationError } from 'standardwebhooks';
export { createTailorClient, type TailorClient, type TailorClientOptions } from './client.ts';
export { type ListItem, type ListPath, paginate } from './paginate.ts';
export { type FetchResult, TailorProblem, unwrap } from './problem.ts';
export type * from './schema.ts';
export { type DeliveryHeaders, type TailorEvent, verifyWebhook } from './webhooks.ts';
