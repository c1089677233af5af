import createClient, { type Client } from 'openapi-fetch';
import { refuseUnsafePathParameters } from './path-parameters.js';
import { DEFAULT_REQUEST_OPTIONS, retrying, type TailorRequestOptions, type Transport } from './retries.js';
import type { paths } from './schema.js';
import { VERSION } from './version.js';

/**
 * An openapi-fetch client over every path of the Tailor API, and `withOptions` for the calls that
 * need another timeout or retry count.
 */
export type TailorClient = Client<paths> & {
  /**
   * This client with other request options, for one call or a few:
   * `tailor.withOptions({ timeout: 5_000, maxRetries: 0 }).GET(…)`. It shares the client's
   * middleware (`use`), and the options not given stay the client's.
   */
  withOptions(options: TailorRequestOptions): TailorClient;
};

export interface TailorClientOptions extends TailorRequestOptions {
  /** The server's address, without `/v0`: `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A key of `tailor keys create`, sent as `x-api-key` with every request. */
  apiKey: string;
  /** Replaces the global `fetch` (tests, proxies, instrumentation); retries and timeouts wrap it. */
  fetch?: Transport;
}

export function createTailorClient({
  baseUrl,
  apiKey,
  fetch,
  ...options
}: TailorClientOptions): TailorClient {
  const send = fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey, ...userAgent() } });
  client.use(refuseUnsafePathParameters);
  return withPolicy(client, send, settled(DEFAULT_REQUEST_OPTIONS, options));
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;

/** `client`, each of its calls sent through `send` with `policy`'s retries and timeout. */
function withPolicy(
  client: Client<paths>,
  send: Transport,
  policy: Required<TailorRequestOptions>,
): TailorClient {
  const fetch = retrying(send, policy);
  // openapi-fetch takes `fetch` per call: each call gets the policy's, unless it names its own.
  const request = (method: string, url: string, init?: object) =>
    (client.request as (method: string, url: string, init: object) => unknown)(method, url, {
      fetch,
      ...init,
    });
  const methods = METHODS.map((method) => [
    method,
    (url: string, init?: object) => request(method, url, init),
  ]);
  return {
    ...client,
    ...Object.fromEntries(methods),
    request,
    withOptions: (options: TailorRequestOptions) => withPolicy(client, send, settled(policy, options)),
  } as TailorClient;
}

/** `base` with the options given, one by one (an option given as undefined keeps the base's). */
function settled(
  base: Required<TailorRequestOptions>,
  { maxRetries, timeout }: TailorRequestOptions,
): Required<TailorRequestOptions> {
  return { maxRetries: maxRetries ?? base.maxRetries, timeout: timeout ?? base.timeout };
}

/** `tailor-client-node/0.2.0 node/20.19.0` under Node; a browser sends its own and may not be told another. */
function userAgent(): Record<string, string> {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return node ? { 'User-Agent': `tailor-client-node/${VERSION} node/${node}` } : {};
}
