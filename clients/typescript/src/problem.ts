import { TailorProblem } from './errors.js';
import type { Problem } from './schema.js';

/** What an openapi-fetch call resolves to: its data on success, its error body otherwise. */
export type FetchResult =
  | { data: unknown; error?: never; response: Response }
  | { data?: never; error: unknown; response: Response };

type Data<R extends FetchResult> = Extract<R, { error?: never }>['data'];

/**
 * The data of a successful call; a failed one throws TailorProblem (or, when the answer is not a
 * problem document, for instance an HTML page from a proxy, an Error naming its status).
 */
export async function unwrap<R extends FetchResult>(result: R | PromiseLike<R>): Promise<Data<R>> {
  const settled = await result;
  if (settled.error !== undefined) throw failure(settled.error, settled.response);
  return settled.data;
}

/** The error to throw for a failed call's body. */
export function failure(body: unknown, response: Response): Error {
  if (isProblem(body)) return new TailorProblem(body);
  return new Error(
    `HTTP ${response.status} ${response.statusText} from ${response.url}, not a problem document`,
  );
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    'code' in body &&
    typeof body.code === 'string' &&
    'status' in body &&
    typeof body.status === 'number'
  );
}
