import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.ts';

/** An openapi-fetch client over every path of the Tailor API. */
export type TailorClient = Client<paths>;

export interface TailorClientOptions {
  /** The server's address, without `/v0`: `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A key of `tailor keys create`, sent as `x-api-key` with every request. */
  apiKey: string;
  /** Replaces the global `fetch` (tests, proxies, instrumentation). */
  fetch?: (request: Request) => Promise<Response>;
}

export function createTailorClient({ baseUrl, apiKey, fetch }: TailorClientOptions): TailorClient {
  return createClient<paths>({ baseUrl, fetch, headers: { 'x-api-key': apiKey } });
}
