import type { Kysely } from 'kysely';
import type { TenantDb } from '../../db/tenant-db.ts';
import { enqueue, type JobKind } from '../../jobs/queue.ts';
import { newId } from '../../shared/ids.ts';
import { toTimestamp } from '../../shared/time.ts';
import {
  activeSubscriptions,
  type DeliveryRow,
  deleteEvents,
  deleteEventsBefore,
  findEventsHolding,
  insertDeliveries,
  insertEvent,
  type SubscriptionRow,
} from './store.ts';
import type { WebhooksTables } from './tables.ts';

export const EVENT_TYPES = [
  'page.version.created',
  'page.version.processed',
  'page.version.published',
  'form.submitted',
  'form.enriched',
  'form.enrichment_failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Sent only on request, to one subscription (POST …/test), whatever kinds it selects. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
/** Every kind a receiver may get: the kinds subscriptions select, and the test. */
export const SENT_EVENT_TYPES = [...EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type SentEventType = (typeof SENT_EVENT_TYPES)[number];

export const DELIVER_JOB = 'deliveries.send' satisfies JobKind;

declare module '../../jobs/queue.ts' {
  interface JobPayloads {
    'deliveries.send': { deliveryId: string };
  }
}
/**
 * The delivery handler follows the configured retry schedule itself and ends the job when it is
 * through; this only bounds retries of the job itself failing (a database outage, say).
 */
const DELIVERY_JOB_ATTEMPTS = 100;

export function subscribedTo(subscription: Pick<SubscriptionRow, 'events'>, type: EventType): boolean {
  if (subscription.events === null) return true;
  return (JSON.parse(subscription.events) as string[]).includes(type);
}

/** The event as receivers get it. */
export function eventBody(event: { id: string; type: string; created_at: number; data: string }): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"createdAt":"${toTimestamp(event.created_at)}","data":${event.data}}`;
}

/**
 * Records an event in the caller's transaction, with one delivery (and its job) per active
 * subscription that selects its kind: the transactional outbox. The event exists, and will be
 * delivered, exactly when the change it reports was committed. Features emit events through
 * src/workflows/events/payloads.ts, which checks `data` against the kind's payload schema.
 */
export async function recordEvent(db: TenantDb, type: EventType, data: object): Promise<string> {
  const now = Date.now();
  const id = newId('evt');
  await insertEvent(db, { id, type, data: JSON.stringify(data), created_at: now });
  const deliveries: DeliveryRow[] = (await activeSubscriptions(db))
    .filter((subscription) => subscribedTo(subscription, type))
    .map((subscription) => ({
      id: newId('delivery'),
      event_id: id,
      subscription_id: subscription.id,
      state: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
      delivered_at: null,
    }));
  await insertDeliveries(db, deliveries);
  for (const delivery of deliveries) await enqueueDelivery(db, delivery.id);
  return id;
}

/** Queues the job that attempts a pending delivery, in the caller's transaction. */
export async function enqueueDelivery(db: TenantDb, deliveryId: string): Promise<void> {
  await enqueue(db, DELIVER_JOB, { deliveryId }, { maxAttempts: DELIVERY_JOB_ATTEMPTS });
}

/**
 * Removes, across tenants, the events of `type` created before `before` and their delivery log,
 * once no delivery of them is pending: for data kept no longer than what the event reports.
 */
export function deleteDeliveredEventsBefore(
  db: Kysely<WebhooksTables>,
  type: EventType,
  before: number,
): Promise<void> {
  return deleteEventsBefore(db, before, type);
}

/** The tenant's events whose data holds any of `texts` (compared case-insensitively): their ids and data. */
export function eventsHolding(db: TenantDb, texts: string[]): Promise<{ id: string; data: string }[]> {
  return findEventsHolding(db, texts);
}

/**
 * Deletes the tenant's events `ids` with their deliveries: a delivery still pending is then never
 * attempted. For a person's erasure, whose details events may carry.
 */
export function eraseEvents(db: TenantDb, ids: string[]): Promise<void> {
  return deleteEvents(db, ids);
}
