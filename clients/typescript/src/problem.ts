import type { FieldError, Problem } from './schema.ts';

/** A failed request: the API's problem document (docs/api.md, Errors), with its fields at hand. */
export class TailorProblem extends Error {
  override readonly name = 'TailorProblem';
  /** The HTTP status, as in the problem. */
  readonly status: number;
  /** The stable error code (`validation_failed`, `not_found`, `conflict`…): match on it. */
  readonly code: string;
  /** The invalid fields of a `validation_failed`, as JSON pointers into the request; empty otherwise. */
  readonly errors: FieldError[];

  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.errors = problem.errors ?? [];
  }
}

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
