import { Webhook } from 'standardwebhooks';
import type { webhooks } from './schema.js';

type EventPayload<Kind extends keyof webhooks> = webhooks[Kind]['post'] extends {
  requestBody: { content: { 'application/json': infer Event } };
}
  ? Event
  : never;

/**
 * An event as Tailor delivers it (docs/webhooks.md): one member per kind of the document's
 * `webhooks`, told apart by `type`, so `if (event.type === 'page.version.published')` types `data`.
 */
export type TailorEvent = { [Kind in keyof webhooks]: EventPayload<Kind> }[keyof webhooks];

/** A delivery's headers: a fetch `Headers`, or a plain record such as Node's `request.headers`. */
export type DeliveryHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * The event of a delivery whose signature `secret` (the subscription's `whsec_…`) made, over
 * `payload`, the request body exactly as received. Throws standardwebhooks'
 * WebhookVerificationError when a header is missing, the signature does not match, or the
 * timestamp is more than five minutes from now.
 */
export function verifyWebhook(secret: string, payload: string, headers: DeliveryHeaders): TailorEvent {
  new Webhook(secret).verify(payload, signatureHeaders(headers), { jsonParse: false });
  return JSON.parse(payload);
}

/** The headers as standardwebhooks reads them: one string each (it matches names in any case). */
function signatureHeaders(headers: DeliveryHeaders): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers] : Object.entries(headers);
  return Object.fromEntries(
    entries.map(([name, value]) => [name, Array.isArray(value) ? value.join(' ') : (value ?? '')]),
  );
}
