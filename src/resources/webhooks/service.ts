import { CREATED_AND_UPDATED, fieldsOf, flag, json, nullable, nullableTimestamp } from '../../db/fields.ts';
import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { found, invalidField, invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { assertPublicUrl } from './address-guard.ts';
import { type AttemptSettings, failureOf, sendEvent } from './delivery.ts';
import { enqueueDelivery, WEBHOOK_TEST_EVENT } from './events.ts';
import {
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  type WebhookSubscriptionUpdate,
  type WebhookSubscriptionWithSecret,
  type WebhookTestData,
} from './schema.ts';
import { newSecret } from './signature.ts';
import {
  type DeliveryRow,
  type DeliveryWithEvent,
  deleteSubscription,
  findSubscription,
  findSubscriptionDelivery,
  insertDeliveries,
  insertEvent,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  reopenDelivery,
  type SubscriptionChanges,
  type SubscriptionRow,
  updateSubscription,
} from './store.ts';

/** During a rotation the old secret keeps signing (next to the new one) for this long. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface UrlPolicy {
  allowPrivate: boolean;
}

type EventKinds = NonNullable<WebhookSubscription['events']>;

/** The one place a subscription's field meets its column; its secrets are never shown. */
const subscriptionFields = fieldsOf<SubscriptionRow>()(WebhookSubscription, {
  subscriptionId: 'id',
  url: 'url',
  events: { column: 'events', codec: nullable(json<EventKinds>()) },
  active: { column: 'active', codec: flag },
  ...CREATED_AND_UPDATED,
});

const present = subscriptionFields.present;

/** The one place a delivery's field meets its column: deliveries are written by Tailor alone. */
const deliveryFields = fieldsOf<DeliveryWithEvent>()(WebhookDelivery, {
  deliveryId: 'id',
  subscriptionId: 'subscription_id',
  eventId: 'event_id',
  // The events table holds every kind; a delivery's is one that is sent.
  eventType: (row) => row.event_type as WebhookDelivery['eventType'],
  state: 'state',
  attempts: 'attempts',
  lastStatusCode: 'last_status_code',
  lastError: 'last_error',
  // A finished delivery keeps its last due time, which is due no more.
  nextAttemptAt: (row) => (row.state === 'pending' ? nullableTimestamp.present(row.next_attempt_at) : null),
  ...CREATED_AND_UPDATED,
  deliveredAt: { column: 'delivered_at', codec: nullableTimestamp },
});

const presentDelivery = deliveryFields.present;

/** Receivers are absolute http(s) URLs without credentials, on public addresses unless allowed. */
async function checkUrl(value: string, policy: UrlPolicy): Promise<string> {
  // The schema's `uri` format accepts strings that are no usable URL ("http://", a host of
  // "300.1.1.1"): they must be a 400 here, not a TypeError from `new URL`.
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url) throw invalidField('/body/url', 'must be an absolute URL with a valid host');
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidField('/body/url', 'must be an http or https URL');
  // WHATWG parsing reads "http:host" as "http://host/"; the URL is stored and sent as given, so it
  // must spell out its authority.
  if (!/^https?:\/\//i.test(value)) throw invalidField('/body/url', 'must start with http:// or https://');
  // Any "@" in the authority is userinfo, even an empty one ("http://:@host/") that the parsed URL hides.
  if (/^https?:\/\/[^/?#]*@/i.test(value)) throw invalidField('/body/url', 'must not carry credentials');
  if (url.port === '0') throw invalidField('/body/url', 'must not use port 0');
  if (!policy.allowPrivate) {
    await assertPublicUrl(url).catch((error: Error) => {
      throw invalidField('/body/url', `must point at a public address: ${error.message}`);
    });
  }
  return value;
}

async function requireSubscription(db: TenantDb, id: string): Promise<SubscriptionRow> {
  return found(await findSubscription(db, id), `Webhook subscription ${id}`);
}

/** A switched-off subscription gets nothing: no event, no test, no retry. */
function requireActive(subscription: SubscriptionRow): SubscriptionRow {
  if (subscription.active !== 1) {
    throw invalidState('The subscription is switched off (active: false); switch it on first');
  }
  return subscription;
}

export async function createSubscription(
  db: TenantDb,
  input: WebhookSubscriptionCreate,
  policy: UrlPolicy,
): Promise<WebhookSubscriptionWithSecret> {
  const now = Date.now();
  const row: SubscriptionRow = {
    ...subscriptionFields.columns(WebhookSubscriptionCreate, {
      ...input,
      url: await checkUrl(input.url, policy),
      active: input.active ?? true,
    }),
    id: newId('whsub'),
    secret: newSecret(),
    previous_secret: null,
    previous_secret_until: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  await insertSubscription(db, row);
  return { ...present(row), secret: row.secret };
}

export async function getSubscription(db: TenantDb, id: string): Promise<WebhookSubscription> {
  return present(await requireSubscription(db, id));
}

export async function listAllSubscriptions(db: TenantDb, page: Paging): Promise<Paged<WebhookSubscription>> {
  return mapPaged(await listSubscriptions(db, page), present);
}

/** Omitted fields stay; `events: null` selects every kind. Switching a subscription on clears its failure record. */
export async function updateSubscriptionFields(
  db: TenantDb,
  id: string,
  input: WebhookSubscriptionUpdate,
  policy: UrlPolicy,
): Promise<WebhookSubscription> {
  await requireSubscription(db, id);
  const fields: WebhookSubscriptionUpdate = {
    ...input,
    url: input.url === undefined ? undefined : await checkUrl(input.url, policy),
  };
  const changes: SubscriptionChanges = {
    ...subscriptionFields.write(fields),
    // Switched on again: its failures are behind it.
    ...(input.active && { failing_since: null }),
    updated_at: Date.now(),
  };
  return db.transaction(async (tx) => {
    await updateSubscription(tx, id, changes);
    return getSubscription(tx, id);
  });
}

export async function removeSubscription(
  db: TenantDb,
  id: string,
): Promise<{ subscriptionId: string; deleted: true }> {
  const deleted = await deleteSubscription(db, id);
  if (!deleted) throw notFound(`Webhook subscription ${id}`);
  return { subscriptionId: id, deleted: true };
}

/** A new secret; the old one keeps signing beside it for 24 hours so receivers can switch over. */
export async function rotateSecret(db: TenantDb, id: string): Promise<WebhookSubscriptionWithSecret> {
  const current = await requireSubscription(db, id);
  const now = Date.now();
  const secret = newSecret();
  await updateSubscription(db, id, {
    secret,
    previous_secret: current.secret,
    previous_secret_until: now + ROTATION_OVERLAP_MS,
    updated_at: now,
  });
  return { ...(await getSubscription(db, id)), secret };
}

export async function listSubscriptionDeliveries(
  db: TenantDb,
  id: string,
  page: Paging,
): Promise<Paged<WebhookDelivery>> {
  await requireSubscription(db, id);
  return mapPaged(await listDeliveries(db, id, page), presentDelivery);
}

/**
 * Sends a signed `webhook.test` event to the subscription now, whatever kinds it selects, and
 * answers the delivery as it ended. The test is tried once, not retried; it is in the
 * subscription's delivery log (and can be retried from there), but leaves the subscription's
 * failure record and `active` alone: a test probes the receiver, it does not judge it. A switched-off
 * subscription gets nothing, tests included (409).
 */
export async function sendTestEvent(
  db: TenantDb,
  id: string,
  settings: AttemptSettings,
): Promise<WebhookDelivery> {
  const subscription = requireActive(await requireSubscription(db, id));
  const now = Date.now();
  const data: WebhookTestData = { subscriptionId: subscription.id };
  const event = { id: newId('evt'), type: WEBHOOK_TEST_EVENT, data: JSON.stringify(data), created_at: now };
  const result = await sendEvent(subscription, event, settings, now);
  const failure = failureOf(result);
  const done = Date.now();
  const delivery: DeliveryRow = {
    id: newId('delivery'),
    event_id: event.id,
    subscription_id: subscription.id,
    state: failure === null ? 'succeeded' : 'failed',
    attempts: 1,
    last_status_code: result.status ?? null,
    last_error: failure,
    next_attempt_at: null,
    created_at: now,
    updated_at: done,
    delivered_at: failure === null ? done : null,
  };
  await db.transaction(async (tx) => {
    await insertEvent(tx, event);
    await insertDeliveries(tx, [delivery]);
  });
  return presentDelivery({ ...delivery, event_type: event.type });
}

/**
 * Queues a new attempt of a finished delivery (failed or succeeded), with the same event and so the
 * same webhook-id. It is then made like any attempt: should it fail, the retry schedule goes on
 * from the attempts already made (a delivery that used them all is tried just this once). 409 while
 * the delivery is pending or the subscription is switched off.
 */
export async function retryDelivery(
  db: TenantDb,
  subscriptionId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const subscription = await requireSubscription(db, subscriptionId);
  if (!(await findSubscriptionDelivery(db, subscriptionId, deliveryId)))
    throw notFound(`Delivery ${deliveryId}`);
  requireActive(subscription);
  await db.transaction(async (tx) => {
    if (!(await reopenDelivery(tx, deliveryId, Date.now()))) {
      throw invalidState('The delivery is still pending: it will be attempted on its own');
    }
    await enqueueDelivery(tx, deliveryId);
  });
  return presentDelivery(
    (await findSubscriptionDelivery(db, subscriptionId, deliveryId)) as DeliveryWithEvent,
  );
}
