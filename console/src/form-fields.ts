import type { Failure } from './api.ts';

/**
 * `failure` with the field errors that name a query or path parameter (`/querystring/startDate`,
 * `/params/brand_id`) renamed to the form field that holds it (`fields` maps one to the other), so
 * a Field, which names its field under /body, shows them beside the right control.
 */
export function atFormFields(failure: Failure | null, fields: Record<string, string>): Failure | null {
  if (!failure?.errors) return failure;
  return {
    ...failure,
    errors: failure.errors.map((error) => {
      const field = fields[error.path];
      return field ? { ...error, path: `/body/${field}` } : error;
    }),
  };
}
