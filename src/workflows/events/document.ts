import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';
import { SENT_EVENT_TYPES, type SentEventType } from '../../resources/webhooks/events.ts';
import { EVENT_PAYLOADS } from './payloads.ts';

/** `page.version.created` → `PageVersionCreated`. */
const pascal = (kind: string) =>
  kind
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** The body Tailor POSTs for an event of kind `kind`: the envelope around that kind's payload. */
export function eventEnvelope<K extends SentEventType>(kind: K) {
  return Type.Object(
    {
      id: Type.String({
        pattern: '^evt_[a-z0-9]{26}$',
        description: 'The event id; also the webhook-id header, the same on every attempt',
      }),
      type: Type.Literal(kind),
      createdAt: Timestamp,
      data: EVENT_PAYLOADS[kind],
    },
    { title: `${pascal(kind)}Event` },
  );
}

const DESCRIPTIONS: Record<SentEventType, string> = {
  'page.version.created': 'An audience version is queued for generation.',
  'page.version.processed': 'An audience version is generated and is now a draft.',
  'page.version.published': 'An audience version is published.',
  'form.submitted': 'A visitor submitted the action form of a public page.',
  'form.enriched': 'A form submission was enriched: its person (found or created) and their account.',
  'form.enrichment_failed': 'A form submission could not be enriched, and why.',
  'webhook.test': 'A test sent with POST /v0/webhook_subscriptions/{subscription_id}/test.',
};

/** The Standard Webhooks headers every delivery carries. */
const SIGNATURE_HEADERS = [
  ['webhook-id', 'The event id (evt_…), the same on every attempt: deduplicate on it'],
  ['webhook-timestamp', 'When this attempt was signed, in Unix seconds'],
  [
    'webhook-signature',
    'v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed with the decoded secret>; during a secret rotation one signature per live secret, separated by spaces',
  ],
].map(([name, description]) => ({
  in: 'header',
  name,
  required: true,
  description,
  schema: { type: 'string' },
}));

/** How a receiver's answer to an event is taken. */
const EVENT_RESPONSES = {
  '2XX': { description: 'Received: any 2xx within 15 s is a success' },
  '410': { description: 'Gone: the subscription is switched off and gets nothing more' },
  default: { description: 'Anything else is retried on the retry schedule, then given up' },
};

/** A test only probes the receiver: tried once, whatever it answers the subscription stays as it was. */
const TEST_RESPONSES = {
  '2XX': { description: 'Received: any 2xx within 15 s is a success' },
  default: {
    description:
      'Anything else (a 410 included) is a failed test, not retried; the subscription stays active and the failure does not count towards switching it off',
  },
};

/** Who gets an event of `kind`. */
const recipients = (kind: SentEventType) =>
  kind === 'webhook.test'
    ? 'POSTed at once to the one subscription tested, whatever kinds it selects'
    : 'POSTed to the URL of each active subscription that selects the kind';

/** One path item per event kind, for the `webhooks` section of the OpenAPI document. */
export function webhookPathItems(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    SENT_EVENT_TYPES.map((kind) => [
      kind,
      {
        post: {
          operationId: `receive${pascal(kind)}`,
          tags: ['Webhooks'],
          summary: `The ${kind} event`,
          description: `${DESCRIPTIONS[kind]} ${recipients(kind)}; signed as Standard Webhooks specifies (docs/webhooks.md).`,
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: eventEnvelope(kind) } } },
          responses: kind === 'webhook.test' ? TEST_RESPONSES : EVENT_RESPONSES,
        },
      },
    ]),
  );
}
