import { paginate } from '../../http/pagination.ts';
import { EmptyBody } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  DeliveryParams,
  SubscriptionDeleted,
  SubscriptionParams,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookListQuery,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionList,
  WebhookSubscriptionUpdate,
  WebhookSubscriptionWithSecret,
} from './schema.ts';
import {
  createSubscription,
  getSubscription,
  listAllSubscriptions,
  listSubscriptionDeliveries,
  removeSubscription,
  retryDelivery,
  rotateSecret,
  sendTestEvent,
  updateSubscriptionFields,
} from './service.ts';

const tags = ['Webhooks'];
const BASE = '/v0/webhook_subscriptions';
/** What a retry with the same Idempotency-Key gets instead of the secret: no secret is kept in plain text. */
const MASKED_ON_REPLAY =
  'A retry with the same `Idempotency-Key` replays this answer (`Idempotent-Replayed: true`) with the secret masked: `whsec_` followed by one `*` for each of its other characters. The secret itself is not kept; a client that lost it rotates the secret to get a new one.';

export interface WebhookRouteOptions {
  /** Lets subscription URLs point at loopback and private networks. */
  allowPrivate: boolean;
  /** How long a receiver may take to answer a test delivery. */
  testTimeoutMs: number;
}

export async function webhookRoutes(
  api: Api,
  { allowPrivate, testTimeoutMs }: WebhookRouteOptions,
): Promise<void> {
  const policy = { allowPrivate };
  const testSettings = { timeoutMs: testTimeoutMs, allowPrivate };

  api.post(
    BASE,
    {
      config: { secretFields: ['secret'] },
      schema: {
        tags,
        operationId: 'createWebhookSubscription',
        summary: 'Create a webhook subscription',
        description: `Returns the signing secret (whsec_…) once. \`events: null\` (the default) selects every kind, \`[]\` none. The URL must be absolute http(s) without credentials and may not point at loopback, private, link-local or multicast addresses. ${MASKED_ON_REPLAY}`,
        body: WebhookSubscriptionCreate,
        response: { 201: WebhookSubscriptionWithSecret },
      },
    },
    async (request, reply) => {
      const subscription = await createSubscription(request.tenantDb, request.body, policy);
      return reply.code(201).header('Location', `${BASE}/${subscription.subscriptionId}`).send(subscription);
    },
  );

  api.get(
    BASE,
    {
      schema: {
        tags,
        operationId: 'listWebhookSubscriptions',
        summary: 'List webhook subscriptions',
        description:
          'Newest first. Secrets are never listed: one is shown only when it is made (create, rotate_secret).',
        querystring: WebhookListQuery,
        response: { 200: WebhookSubscriptionList },
      },
    },
    (request) => paginate(request, {}, (page) => listAllSubscriptions(request.tenantDb, page)),
  );

  api.get(
    `${BASE}/:subscription_id`,
    {
      schema: {
        tags,
        operationId: 'getWebhookSubscription',
        summary: 'Get a webhook subscription',
        description:
          "The subscription's URL, event filter and whether it is active; its secret is never shown again.",
        params: SubscriptionParams,
        response: { 200: WebhookSubscription },
      },
    },
    (request) => getSubscription(request.tenantDb, request.params.subscription_id),
  );

  api.patch(
    `${BASE}/:subscription_id`,
    {
      schema: {
        tags,
        operationId: 'updateWebhookSubscription',
        summary: 'Update a webhook subscription',
        description:
          'Omitted fields stay. `events: null` selects every kind. Setting `active: true` again after a deactivation resumes deliveries of new events.',
        params: SubscriptionParams,
        body: WebhookSubscriptionUpdate,
        response: { 200: WebhookSubscription },
      },
    },
    (request) =>
      updateSubscriptionFields(request.tenantDb, request.params.subscription_id, request.body, policy),
  );

  api.delete(
    `${BASE}/:subscription_id`,
    {
      schema: {
        tags,
        operationId: 'deleteWebhookSubscription',
        summary: 'Delete a webhook subscription',
        description: 'Its pending deliveries are dropped.',
        params: SubscriptionParams,
        response: { 200: SubscriptionDeleted },
      },
    },
    (request) => removeSubscription(request.tenantDb, request.params.subscription_id),
  );

  api.post(
    `${BASE}/:subscription_id/rotate_secret`,
    {
      config: { secretFields: ['secret'] },
      schema: {
        tags,
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret',
        description: `Returns the new secret once. For 24 hours deliveries carry two signatures, one per secret. ${MASKED_ON_REPLAY}`,
        params: SubscriptionParams,
        body: EmptyBody,
        response: { 200: WebhookSubscriptionWithSecret },
      },
    },
    (request) => rotateSecret(request.tenantDb, request.params.subscription_id),
  );

  api.get(
    `${BASE}/:subscription_id/deliveries`,
    {
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'List deliveries of a subscription',
        description: 'Newest first: attempts, last status code or error, and when the next attempt is due.',
        params: SubscriptionParams,
        querystring: WebhookListQuery,
        response: { 200: WebhookDeliveryList },
      },
    },
    (request) => {
      const subscriptionId = request.params.subscription_id;
      return paginate(request, { subscriptionId }, (page) =>
        listSubscriptionDeliveries(request.tenantDb, subscriptionId, page),
      );
    },
  );

  api.post(
    `${BASE}/:subscription_id/test`,
    {
      schema: {
        tags,
        operationId: 'testWebhookSubscription',
        summary: 'Send a test event',
        description:
          'Sends a signed `webhook.test` event (`data: {subscriptionId}`) to the subscription now, whatever its `events`, and answers once the receiver has answered (within 15 s) with the delivery: `succeeded` or `failed`, the status code or the error. The test is tried once, not retried; whatever the receiver answers (a `410` included), the subscription stays as it was. It is in the delivery log, where it can be retried. 409 `invalid_state` while the subscription is switched off.',
        params: SubscriptionParams,
        body: EmptyBody,
        response: { 200: WebhookDelivery },
      },
    },
    (request) => sendTestEvent(request.tenantDb, request.params.subscription_id, testSettings),
  );

  api.post(
    `${BASE}/:subscription_id/deliveries/:delivery_id/retry`,
    {
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: 'Retry a delivery',
        description:
          'Queues a new attempt of a failed or succeeded delivery, with the same event and webhook-id; answers 202 with the delivery, pending. Should the attempt fail, the retry schedule goes on from the attempts already made. 409 `invalid_state` while the delivery is pending or the subscription is switched off.',
        params: DeliveryParams,
        body: EmptyBody,
        response: { 202: WebhookDelivery },
      },
    },
    async (request, reply) => {
      const { subscription_id: subscriptionId, delivery_id: deliveryId } = request.params;
      return reply.code(202).send(await retryDelivery(request.tenantDb, subscriptionId, deliveryId));
    },
  );
}
