import type { Static, TSchema } from 'typebox';
import type { TenantDb } from '../../db/tenant-db.ts';
import { VersionEventData } from '../../resources/audiences/schema.ts';
import { FormEnrichmentFailedData, FormSubmittedData } from '../../resources/forms/schema.ts';
import { type EventType, recordEvent, type SentEventType } from '../../resources/webhooks/events.ts';
import { WebhookTestData } from '../../resources/webhooks/schema.ts';
import { FormEnrichedData } from '../enrichment/schema.ts';

/**
 * The `data` of each event kind: the contract with receivers (docs/webhooks.md). Emitting checks
 * a payload against it at compile time, and the OpenAPI document's `webhooks` section publishes it.
 */
export const EVENT_PAYLOADS = {
  'page.version.created': VersionEventData,
  'page.version.processed': VersionEventData,
  'page.version.published': VersionEventData,
  'form.submitted': FormSubmittedData,
  'form.enriched': FormEnrichedData,
  'form.enrichment_failed': FormEnrichmentFailedData,
  'webhook.test': WebhookTestData,
} as const satisfies Record<SentEventType, TSchema>;

export type EventPayload<K extends SentEventType> = Static<(typeof EVENT_PAYLOADS)[K]>;

/** Records an event of kind `type` in the caller's transaction, for every subscription that selects it. */
export function emitEvent<K extends EventType>(
  db: TenantDb,
  type: K,
  data: EventPayload<K>,
): Promise<string> {
  return recordEvent(db, type, data);
}
