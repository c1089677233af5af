import type { FieldError, Problem } from './schema.js';

/** Every error the client throws of its own: catch this to catch them all. */
export class TailorError extends Error {
  override readonly name: string = 'TailorError';
}

/** A failed request: the API's problem document (docs/api.md, Errors), with its fields at hand. */
export class TailorProblem extends TailorError {
  override readonly name = 'TailorProblem';
  /** The HTTP status, as in the problem. */
  readonly status: number;
  /** The stable error code (`validation_failed`, `not_found`, `conflict`…): match on it. */
  readonly code: string;
  /** The invalid fields of a `validation_failed`, as JSON pointers into the request; empty otherwise. */
  readonly errors: FieldError[];
  /** The server's id of the request (also its `x-request-id` header): quote it when reporting a problem. */
  readonly requestId: string;

  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.errors = problem.errors ?? [];
    this.requestId = problem.requestId;
  }
}

/** No answer came: the connection was refused, reset or lost, or the name did not resolve. */
export class TailorConnectionError extends TailorError {
  override readonly name = 'TailorConnectionError';

  constructor(request: Request, cause: unknown) {
    super(`${request.method} ${request.url} got no answer: ${reasonOf(cause)}`, { cause });
  }
}

/** No answer came within the call's `timeout`. */
export class TailorTimeoutError extends TailorError {
  override readonly name = 'TailorTimeoutError';

  constructor(
    request: Request,
    /** The timeout that ran out, in milliseconds. */
    readonly timeout: number,
  ) {
    super(`${request.method} ${request.url} got no answer within ${timeout} ms`);
  }
}

/**
 * A path parameter that could turn the request into another one (empty, `.` or `..`), or is missing
 * or not a string: the request was not sent.
 */
export class TailorPathParameterError extends TailorError {
  override readonly name = 'TailorPathParameterError';

  constructor(
    /** The operation's path, as the document names it: `/v0/pages/{page_id}`. */
    readonly path: string,
    /** The parameter refused: `page_id`. */
    readonly parameter: string,
    readonly value: unknown,
  ) {
    super(
      `${parameter} of ${path} is ${JSON.stringify(value) ?? String(value)}: a path parameter must be a non-empty id, never "." or "..". Nothing was sent.`,
    );
  }
}

/** The innermost reason of a failed fetch: undici's `fetch failed` hides it in `cause` (ECONNREFUSED…). */
function reasonOf(error: unknown): string {
  let reason = error;
  while (reason instanceof Error && reason.cause !== undefined) reason = reason.cause;
  if (reason instanceof Error)
    return 'code' in reason ? `${reason.code} (${reason.message})` : reason.message;
  return String(reason);
}
