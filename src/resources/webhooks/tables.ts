/** Row types of the event and webhook tables. */

export interface WebhookSubscriptionsTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON array of event kinds; null means every kind. */
  events: string | null;
  active: number;
  secret: string;
  /** The secret before the last rotation, still signing until `previous_secret_until`. */
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** When deliveries started failing without a success since; null while healthy. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  type: string;
  /** JSON. */
  data: string;
  created_at: number;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  event_id: string;
  subscription_id: string;
  state: DeliveryState;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export type WebhooksTables = {
  webhook_subscriptions: WebhookSubscriptionsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
};
