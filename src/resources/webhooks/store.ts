import { type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type {
  EventsTable,
  WebhookDeliveriesTable,
  WebhookSubscriptionsTable,
  WebhooksTables,
} from './tables.ts';

export type SubscriptionRow = Omit<Selectable<WebhookSubscriptionsTable>, 'tenant_id'>;
export type SubscriptionChanges = Omit<
  Updateable<WebhookSubscriptionsTable>,
  'tenant_id' | 'id' | 'created_at'
>;
export type EventRow = Omit<Selectable<EventsTable>, 'tenant_id'>;
export type DeliveryRow = Omit<Selectable<WebhookDeliveriesTable>, 'tenant_id'>;
export type DeliveryChanges = Omit<Updateable<WebhookDeliveriesTable>, 'tenant_id' | 'id' | 'created_at'>;
export type DeliveryWithEvent = DeliveryRow & { event_type: string };

const SUBSCRIPTION_COLUMNS = [
  'id',
  'url',
  'events',
  'active',
  'secret',
  'previous_secret',
  'previous_secret_until',
  'failing_since',
  'created_at',
  'updated_at',
] as const;

const DELIVERY_COLUMNS = [
  'webhook_deliveries.id',
  'webhook_deliveries.event_id',
  'webhook_deliveries.subscription_id',
  'webhook_deliveries.state',
  'webhook_deliveries.attempts',
  'webhook_deliveries.last_status_code',
  'webhook_deliveries.last_error',
  'webhook_deliveries.next_attempt_at',
  'webhook_deliveries.created_at',
  'webhook_deliveries.updated_at',
  'webhook_deliveries.delivered_at',
] as const;

export async function insertSubscription(db: TenantDb<WebhooksTables>, row: SubscriptionRow): Promise<void> {
  await db.insertInto('webhook_subscriptions', row).execute();
}

export function findSubscription(
  db: TenantDb<WebhooksTables>,
  id: string,
): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('webhook_subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function activeSubscriptions(db: TenantDb<WebhooksTables>): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('active', '=', 1)
    .execute();
}

export async function updateSubscription(
  db: TenantDb<WebhooksTables>,
  id: string,
  changes: SubscriptionChanges,
): Promise<void> {
  await db.updateTable('webhook_subscriptions').set(changes).where('id', '=', id).execute();
}

/**
 * Notes a failed attempt. `failing_since` keeps the first failure since the last success; it is
 * set in SQL, not from the row the handler read, so that a success recorded meanwhile by another
 * delivery is not undone by a stale value.
 */
export async function markFailing(db: TenantDb<WebhooksTables>, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', id)
    .execute();
}

/** A success ends the failing streak (whatever the handler read before its attempt). */
export async function clearFailing(db: TenantDb<WebhooksTables>, id: string): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

/** Switches a subscription off when it has been failing since `before` or earlier; true when it did. */
export async function deactivateIfFailingSince(
  db: TenantDb<WebhooksTables>,
  id: string,
  before: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ active: 0, updated_at: now })
    .where('id', '=', id)
    .where('active', '=', 1)
    .where('failing_since', '<=', before)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the subscription; its deliveries go with it (the foreign key cascades). */
export async function deleteSubscription(db: TenantDb<WebhooksTables>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listSubscriptions(
  db: TenantDb<WebhooksTables>,
  page: Paging,
): Promise<Paged<SubscriptionRow>> {
  const matching = db.selectFrom('webhook_subscriptions');
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(SUBSCRIPTION_COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

export async function insertEvent(db: TenantDb<WebhooksTables>, row: EventRow): Promise<void> {
  await db.insertInto('events', row).execute();
}

export function findEvent(db: TenantDb<WebhooksTables>, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'data', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertDeliveries(db: TenantDb<WebhooksTables>, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries', rows).execute();
}

export function findDelivery(db: TenantDb<WebhooksTables>, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function updateDelivery(
  db: TenantDb<WebhooksTables>,
  id: string,
  changes: DeliveryChanges,
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
}

/** A delivery of the subscription, with its event's kind; undefined when the subscription has none of that id. */
export function findSubscriptionDelivery(
  db: TenantDb<WebhooksTables>,
  subscriptionId: string,
  id: string,
): Promise<DeliveryWithEvent | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .select([...DELIVERY_COLUMNS, 'events.type as event_type'])
    .where('webhook_deliveries.subscription_id', '=', subscriptionId)
    .where('webhook_deliveries.id', '=', id)
    .executeTakeFirst();
}

/** Makes a finished delivery pending again, due at `now`; false when it is pending already. */
export async function reopenDelivery(
  db: TenantDb<WebhooksTables>,
  id: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', next_attempt_at: now, delivered_at: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '!=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listDeliveries(
  db: TenantDb<WebhooksTables>,
  subscriptionId: string,
  page: Paging,
): Promise<Paged<DeliveryWithEvent>> {
  const matching = db.selectFrom('webhook_deliveries').where('subscription_id', '=', subscriptionId);
  const [rows, total] = await Promise.all([
    descendingAfter(
      matching
        .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
        .select([...DELIVERY_COLUMNS, 'events.type as event_type']),
      'webhook_deliveries.id',
      page,
    ),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

/**
 * Removes events created before `before` (of `type` only, when given), across tenants, with their
 * delivery log (the foreign key cascades), except those with a delivery still pending.
 */
export async function deleteEventsBefore(
  db: Kysely<WebhooksTables>,
  before: number,
  type?: string,
): Promise<void> {
  await db
    .deleteFrom('events')
    .where('created_at', '<', before)
    .$if(type !== undefined, (query) => query.where('type', '=', type as string))
    .where(
      sql<boolean>`NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id AND d.state = 'pending')`,
    )
    .execute();
}

/** The tenant's events whose data holds any of `texts` (case-insensitively, row by row). */
export function findEventsHolding(
  db: TenantDb<WebhooksTables>,
  texts: string[],
): Promise<Pick<EventRow, 'id' | 'data'>[]> {
  if (texts.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('events')
    .select(['id', 'data'])
    .where((eb) => eb.or(texts.map((text) => db.search.containsText('events', ['data'], text))))
    .execute();
}

/** Removes the events with their delivery log (the foreign key cascades), pending deliveries included. */
export async function deleteEvents(db: TenantDb<WebhooksTables>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('events').where('id', 'in', ids).execute();
}

/** Deliveries across tenants by state, and how many of each have had an attempt. */
export function countDeliveriesByState(
  db: Kysely<WebhooksTables>,
): Promise<{ state: WebhookDeliveriesTable['state']; deliveries: number; tried: number }[]> {
  return db
    .selectFrom('webhook_deliveries')
    .groupBy('state')
    .select((eb) => [
      'state',
      eb.fn.countAll<number>().as('deliveries'),
      eb.fn.sum<number>(eb.case().when('attempts', '>', 0).then(1).else(0).end()).as('tried'),
    ])
    .execute();
}
