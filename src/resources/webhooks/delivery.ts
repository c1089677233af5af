import type { TenantDb } from '../../db/tenant-db.ts';
import { type JobHandler, RetryAt } from '../../jobs/queue.ts';
import { DELIVER_JOB, eventBody } from './events.ts';
import { type SendOptions, type SendResult, sendWebhook } from './sender.ts';
import { signatureHeader } from './signature.ts';
import {
  clearFailing,
  deactivateIfFailingSince,
  type EventRow,
  findDelivery,
  findEvent,
  findSubscription,
  markFailing,
  type SubscriptionRow,
  updateDelivery,
  updateSubscription,
} from './store.ts';

const FAILING_DEACTIVATES_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
const LONGEST_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Waits of the retry schedule, each with ±20% jitter so that retries of many deliveries spread out. */
function scheduledRetry(scheduleMs: number[], attempt: number, now: number): number {
  const wait = scheduleMs[Math.min(attempt, scheduleMs.length) - 1] ?? 0;
  return now + Math.round(wait * (0.8 + Math.random() * 0.4));
}

/** When the receiver asked to be retried (Retry-After on 429 or 503), if it said so usably. */
function retryAfter(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const at = Number.isFinite(seconds) ? now + seconds * 1000 : Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(at, now), now + LONGEST_RETRY_AFTER_MS);
}

function liveSecrets(subscription: SubscriptionRow, now: number): string[] {
  const previous =
    subscription.previous_secret && (subscription.previous_secret_until ?? 0) > now
      ? [subscription.previous_secret]
      : [];
  return [subscription.secret, ...previous];
}

/**
 * Records a failed attempt on the subscription; when it was the delivery's last attempt and the
 * subscription has failed every attempt for 5 days, switches the subscription off. Only a last
 * attempt does so, so that every delivery gets its whole retry schedule first.
 */
async function noteFailure(db: TenantDb, subscriptionId: string, now: number, final: boolean): Promise<void> {
  await markFailing(db, subscriptionId, now);
  if (final) await deactivateIfFailingSince(db, subscriptionId, now - FAILING_DEACTIVATES_AFTER_MS, now);
}

/** How one attempt is made. */
export type AttemptSettings = SendOptions;

/** How deliveries are made, as the configuration says. */
export interface DeliverySettings extends AttemptSettings {
  /** Waits before each retry of a failed delivery; a delivery is tried once more than it has entries. */
  retryScheduleMs: number[];
}

/** Why an attempt failed, as the delivery log says it; null when it succeeded (any 2xx). */
export function failureOf(result: SendResult): string | null {
  if (result.status !== undefined && result.status >= 200 && result.status < 300) return null;
  return result.error ?? `the receiver answered ${result.status}`;
}

/**
 * One attempt at delivering `event` to `subscription`, signed at `now` with every live secret.
 * The address guard applies (unless `settings` allows private receivers), as for every attempt.
 */
export function sendEvent(
  subscription: SubscriptionRow,
  event: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data'>,
  settings: AttemptSettings,
  now: number,
): Promise<SendResult> {
  const body = eventBody(event);
  const timestamp = Math.floor(now / 1000);
  return sendWebhook(
    subscription.url,
    body,
    {
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(liveSecrets(subscription, now), event.id, timestamp, body),
      'user-agent': 'Tailor-Webhooks/0',
    },
    settings,
  );
}

/**
 * Delivers one event to one subscription, Standard Webhooks style, at least once: the job is
 * durable, so a restart loses no pending delivery, and every retry carries the same webhook-id.
 * 2xx is success; 410 deactivates the subscription; anything else is retried on the schedule (or
 * at the receiver's Retry-After), then marked failed.
 */
export function deliveryJob(settings: DeliverySettings): JobHandler<typeof DELIVER_JOB> {
  return {
    kind: DELIVER_JOB,
    async run(job) {
      const { db } = job;
      const delivery = await findDelivery(db, job.payload.deliveryId);
      if (delivery?.state !== 'pending') return;
      const [subscription, event] = await Promise.all([
        findSubscription(db, delivery.subscription_id),
        findEvent(db, delivery.event_id),
      ]);
      const now = Date.now();
      if (!subscription || !event || subscription.active !== 1) {
        await updateDelivery(db, delivery.id, {
          state: 'failed',
          last_error: 'the subscription is no longer active',
          next_attempt_at: null,
          updated_at: now,
        });
        return;
      }
      const result = await sendEvent(subscription, event, settings, now);
      const done = Date.now();
      const attempt = {
        attempts: delivery.attempts + 1,
        last_status_code: result.status ?? null,
        updated_at: done,
      };
      const error = failureOf(result);
      if (error === null) {
        await updateDelivery(db, delivery.id, {
          ...attempt,
          state: 'succeeded',
          last_error: null,
          delivered_at: done,
          next_attempt_at: null,
        });
        await clearFailing(db, subscription.id);
        return;
      }
      if (result.status === 410) {
        await updateDelivery(db, delivery.id, {
          ...attempt,
          state: 'failed',
          last_error: error,
          next_attempt_at: null,
        });
        await updateSubscription(db, subscription.id, { active: 0, updated_at: done });
        return;
      }
      const final = attempt.attempts > settings.retryScheduleMs.length;
      await noteFailure(db, subscription.id, done, final);
      if (final) {
        await updateDelivery(db, delivery.id, {
          ...attempt,
          state: 'failed',
          last_error: error,
          next_attempt_at: null,
        });
        return;
      }
      const asked =
        result.status === 429 || result.status === 503 ? retryAfter(result.retryAfter, done) : undefined;
      const next = asked ?? scheduledRetry(settings.retryScheduleMs, attempt.attempts, done);
      await updateDelivery(db, delivery.id, { ...attempt, last_error: error, next_attempt_at: next });
      throw new RetryAt(next, error);
    },
  };
}
