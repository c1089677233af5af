import { TailorConnectionError, TailorTimeoutError } from './errors.js';

/** How a call is sent: both are set per client (createTailorClient) and per call (withOptions). */
export interface TailorRequestOptions {
  /** Retries after a network error, a 429 or a 503 (2 by default; 0 for none). */
  maxRetries?: number;
  /** Milliseconds to wait for each attempt's answer (60,000 by default). */
  timeout?: number;
}

export type Transport = (request: Request) => Promise<Response>;

export const DEFAULT_REQUEST_OPTIONS: Required<TailorRequestOptions> = { maxRetries: 2, timeout: 60_000 };

/** The statuses that say the request was not handled and may be sent again as it is. */
const RETRIED_STATUSES = new Set([429, 503]);
const FIRST_BACKOFF_MS = 500;
const LONGEST_BACKOFF_MS = 8_000;
/** A server asking for a longer pause than this is answered with its 429 or 503, not waited for. */
const LONGEST_RETRY_AFTER_MS = 60_000;

/**
 * `send`, with the policy of a good API client: a network error, a 429 or a 503 is retried up to
 * `maxRetries` times, after the server's `Retry-After` or else an exponential backoff with full
 * jitter; a POST that may be retried carries an `Idempotency-Key` (the caller's, or a new one), the
 * same on every attempt, so that a retry never does the work twice. Each attempt has `timeout` ms to
 * answer; one that has not is not retried (the server may still be doing it) and throws
 * TailorTimeoutError. A call with no answer at all throws TailorConnectionError.
 */
export function retrying(
  send: Transport,
  { maxRetries, timeout }: Required<TailorRequestOptions>,
): Transport {
  return async (request) => {
    const keyed = withIdempotencyKey(request, maxRetries);
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(send, keyed, timeout);
      const delay = attempt < maxRetries ? retryDelay(keyed, outcome, attempt) : undefined;
      if (delay === undefined) {
        if (outcome instanceof Response) return outcome;
        throw outcome;
      }
      if (outcome instanceof Response) await outcome.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

function withIdempotencyKey(request: Request, maxRetries: number): Request {
  if (request.method !== 'POST' || maxRetries === 0 || request.headers.has('idempotency-key')) return request;
  const headers = new Headers(request.headers);
  headers.set('Idempotency-Key', randomKey());
  return new Request(request, { headers });
}

/** 128 random bits in hex: crypto.randomUUID exists only in secure contexts, a console on plain http is not one. */
function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

async function attemptOnce(
  send: Transport,
  request: Request,
  timeout: number,
): Promise<Response | TailorConnectionError | TailorTimeoutError> {
  const deadline = AbortSignal.timeout(timeout);
  try {
    return await send(new Request(request.clone(), { signal: AbortSignal.any([request.signal, deadline]) }));
  } catch (error) {
    if (request.signal.aborted) throw error;
    if (deadline.aborted) return new TailorTimeoutError(request, timeout);
    return new TailorConnectionError(request, error);
  }
}

/**
 * The public endpoints (events, forms) take no `Idempotency-Key`: a POST to them that got no answer
 * may have been recorded, so only a 429 or a 503, which say it was not, sends it again.
 */
function replaysSafely(request: Request): boolean {
  return request.method !== 'POST' || !new URL(request.url).pathname.includes('/v0/public/');
}

/** How long to wait before the next attempt, or undefined when this outcome is final. */
function retryDelay(request: Request, outcome: Response | Error, attempt: number): number | undefined {
  if (outcome instanceof TailorConnectionError) return replaysSafely(request) ? backoff(attempt) : undefined;
  if (!(outcome instanceof Response) || !RETRIED_STATUSES.has(outcome.status)) return undefined;
  const asked = retryAfter(outcome.headers.get('retry-after'));
  if (asked === undefined) return backoff(attempt);
  return asked <= LONGEST_RETRY_AFTER_MS ? asked : undefined;
}

/** Full jitter: anywhere from nothing to the exponential step, so that clients failing together spread out. */
function backoff(attempt: number): number {
  return Math.random() * Math.min(LONGEST_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt);
}

/** `Retry-After` in milliseconds from now: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancel = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', cancel);
      resolve();
    }, ms);
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
  });
}
