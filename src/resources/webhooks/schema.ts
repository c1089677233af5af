import { type Static, Type } from 'typebox';
import { IdParams, Nullable, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';
import { EVENT_TYPES, SENT_EVENT_TYPES } from './events.ts';

export const EventKind = Type.Enum(EVENT_TYPES, { title: 'EventKind' });
export const SentEventKind = Type.Enum(SENT_EVENT_TYPES, {
  title: 'SentEventKind',
  description: 'An event kind, or webhook.test for a test sent with POST …/test',
});

const Url = Type.String({
  format: 'uri',
  // Schemes are case-insensitive (RFC 3986), as the service's receiver check reads them.
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  maxLength: 2048,
  description:
    'An http(s) URL such as https://hooks.acme.com/tailor, without credentials, on a public address',
  examples: ['https://hooks.acme.com/tailor'],
});
const Events = Nullable(Type.Array(EventKind, { uniqueItems: true }), {
  description: 'The event kinds to receive; null means every kind, [] none',
});

export const WebhookSubscription = Type.Object(
  {
    subscriptionId: Type.String(),
    url: Type.String({ format: 'uri' }),
    events: Events,
    active: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookSubscription' },
);
export type WebhookSubscription = Static<typeof WebhookSubscription>;

export const WebhookSubscriptionWithSecret = Type.Object(
  {
    ...WebhookSubscription.properties,
    secret: Type.String({
      description:
        'whsec_…: shown only here; verify signatures with it. In a replay of this answer to a retry with the same Idempotency-Key it is masked: whsec_ followed by asterisks.',
    }),
  },
  { title: 'WebhookSubscriptionWithSecret' },
);
export type WebhookSubscriptionWithSecret = Static<typeof WebhookSubscriptionWithSecret>;

export const WebhookSubscriptionCreate = Type.Object(
  {
    url: Url,
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean({ default: true })),
  },
  {
    title: 'WebhookSubscriptionCreate',
    examples: [
      {
        url: 'https://hooks.northwind-outfitters.com/tailor',
        events: ['page.version.published', 'form.enriched'],
        active: true,
      },
    ],
    additionalProperties: false,
  },
);
export type WebhookSubscriptionCreate = Static<typeof WebhookSubscriptionCreate>;

export const WebhookSubscriptionUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean()),
  },
  {
    title: 'WebhookSubscriptionUpdate',
    examples: [{ events: ['form.submitted', 'form.enriched', 'form.enrichment_failed'] }],
    additionalProperties: false,
  },
);
export type WebhookSubscriptionUpdate = Static<typeof WebhookSubscriptionUpdate>;

export const WebhookDelivery = Type.Object(
  {
    deliveryId: Type.String(),
    subscriptionId: Type.String(),
    eventId: Type.String({ description: 'Sent as webhook-id on every attempt' }),
    eventType: SentEventKind,
    state: Type.Enum(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer({ minimum: 0 }),
    lastStatusCode: Nullable(Type.Integer(), {
      description: "The receiver's last answer; null when none came",
    }),
    lastError: Nullable(Type.String()),
    nextAttemptAt: Nullable(Timestamp, { description: 'When the next attempt is due; null once finished' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deliveredAt: Nullable(Timestamp),
  },
  { title: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookSubscriptionList = PagedList(WebhookSubscription, { title: 'WebhookSubscriptionList' });
export const WebhookDeliveryList = PagedList(WebhookDelivery, { title: 'WebhookDeliveryList' });
export const WebhookListQuery = Type.Object({ ...PageQuery });
export const SubscriptionParams = IdParams('subscription_id');
export const DeliveryParams = IdParams('subscription_id', 'delivery_id');
export const SubscriptionDeleted = Type.Object(
  {
    subscriptionId: Type.String(),
    deleted: Type.Literal(true),
  },
  { title: 'WebhookSubscriptionDeleted' },
);

/** `data` of a `webhook.test` event. */
export const WebhookTestData = Type.Object(
  { subscriptionId: Type.String({ description: 'The subscription the test was sent to' }) },
  { title: 'WebhookTestData' },
);
export type WebhookTestData = Static<typeof WebhookTestData>;
