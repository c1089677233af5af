import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { assertPublicUrl, publicOnlyLookup } from './address-guard.ts';

export interface SendResult {
  /** The receiver's status; undefined when no answer came (refused, timed out, unreachable). */
  status?: number;
  /** Seconds or an HTTP date, from Retry-After. */
  retryAfter?: string;
  error?: string;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * POSTs one delivery. Redirects are not followed (a 3xx is a failed attempt); the whole exchange
 * must finish within the timeout; non-public addresses are refused at connect time.
 */
export async function sendWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const url = new URL(target);
  if (!options.allowPrivate) {
    try {
      if (net.isIP(url.hostname.replace(/^\[|\]$/g, ''))) await assertPublicUrl(url);
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode, retryAfter: response.headers['retry-after'] ?? undefined }),
        );
        response.on('error', (error) => resolve({ error: error.message }));
      },
    );
    request.on('error', (error) =>
      resolve({
        error: error.name === 'AbortError' ? `no answer within ${options.timeoutMs} ms` : error.message,
      }),
    );
    request.end(body);
  });
}
