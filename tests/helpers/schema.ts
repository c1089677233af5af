import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from 'typebox';
import { expect } from 'vitest';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);

/** Asserts that a response body matches the published schema of its type, field by field. */
export function expectSchema(schema: TSchema, value: unknown): void {
  const validate = ajv.compile(schema);
  const valid = validate(value);
  expect(valid ? [] : validate.errors).toEqual([]);
}
