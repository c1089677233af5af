/**
 * Every failure the service reports is an AppError with one of these codes; the HTTP layer maps
 * each code to its status and a problem+json body. Services throw them without knowing about HTTP.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  unauthorized: 401,
  missing_api_key: 401,
  invalid_api_key: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  /** JSON pointer into the request, such as `/body/name`. */
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found`);
}

export function invalidFields(errors: FieldError[]): AppError {
  return new AppError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
}

export function invalidField(path: string, message: string): AppError {
  return invalidFields([{ path, message }]);
}

export function invalidState(message: string): AppError {
  return new AppError('invalid_state', message);
}

/**
 * `value` when there is one, else not_found naming `what`: `found(await findPerson(db, id), \`Person
 * ${id}\`)`. A false (a delete that removed nothing) is not found too.
 */
export function found<T>(value: T | undefined | null | false, what: string): T {
  if (value === undefined || value === null || value === false) throw notFound(what);
  return value;
}
