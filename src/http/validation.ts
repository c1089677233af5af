import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function ajv(options: Options): Ajv {
  const instance = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // Each error carries its schema and value, so that its message can say the rule in words
    // (src/shared/field-errors.ts).
    verbose: true,
    ...options,
  });
  addFormats.default(instance);
  return instance;
}

// Bodies are JSON and must already have the right types: "5" is not a number there.
const bodies = ajv({ coerceTypes: false });
// Query strings and path parameters only ever carry strings, so they are converted to the schema's types.
const strings = ajv({ coerceTypes: true });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodies : strings).compile(schema);
