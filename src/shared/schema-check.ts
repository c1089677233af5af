import type { Format as AjvFormat } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { Format } from 'typebox/format';
import Schema from 'typebox/schema';
import type { FieldError } from './errors.ts';
import { fieldErrors, type SchemaIssue } from './field-errors.ts';

/**
 * A value checked against a JSON schema as the API checks a request, for a client that sends nothing
 * the API would refuse (the console, before each request): the same rules, refused in the same words
 * at the same pointers (`/body/content/headline`: "must have at most 90 characters (it has 112)").
 *
 * TypeBox's interpreter does the checking: it reads the schema as data, where Ajv, which the server
 * uses, compiles code, which the console's Content-Security-Policy forbids. Its errors are reported as
 * Ajv reports its own (field-errors.ts words both), and its formats are ajv-formats' own definitions,
 * the server's: the two differ on what a date-time or an email may be. It runs in a browser, so it
 * imports nothing of Node.
 */

/** `format` as a test of a string; undefined for a format of numbers. */
function testOf(format: AjvFormat): ((value: string) => boolean) | undefined {
  if (format === true) return () => true;
  if (typeof format === 'string') return testOf(new RegExp(format, 'u'));
  if (format instanceof RegExp) return (value) => format.test(value);
  if (typeof format === 'function') return format;
  if ('type' in format && format.type === 'number') return undefined;
  return testOf(format.validate as AjvFormat);
}

// Formats Ajv does not know pass, as they do on the server (its `strict: false`).
Format.Clear();
for (const [name, format] of Object.entries(fullFormats)) {
  const test = testOf(format);
  if (test) Format.Set(name, test);
}

type Json = Record<string, unknown>;

/** The part of `root` a JSON pointer names (`/properties/name`, `/sections/0`). */
function at(root: unknown, pointer: string): unknown {
  const steps = pointer.split('/').slice(1);
  return steps.reduce<unknown>(
    (node, step) =>
      typeof node === 'object' && node !== null
        ? (node as Json)[step.replaceAll('~1', '/').replaceAll('~0', '~')]
        : undefined,
    root,
  );
}

interface TypeBoxError {
  keyword: string;
  /** Where the schema holding the keyword is: `#/properties/content/properties/headline`. */
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** TypeBox's error as Ajv's, with its schema and value: a list of names is one error a name, as Ajv has it. */
function asAjvHas(schema: unknown, value: unknown, error: TypeBoxError): SchemaIssue[] {
  const issue: SchemaIssue = {
    keyword: error.keyword,
    instancePath: error.instancePath,
    schemaPath: `${error.schemaPath}/${error.keyword}`,
    message: error.message,
    params: error.params,
    parentSchema: at(schema, error.schemaPath.slice(1)) as SchemaIssue['parentSchema'],
    data: at(value, error.instancePath),
  };
  const each = (names: unknown, param: string) =>
    (names as string[]).map((name) => ({ ...issue, params: { [param]: name } }));
  if (error.keyword === 'required') return each(error.params.requiredProperties, 'missingProperty');
  if (error.keyword === 'additionalProperties')
    return each(error.params.additionalProperties, 'additionalProperty');
  // An unknown property is reported again as the `false` schema it meets: once is enough.
  if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) return [];
  return [issue];
}

/**
 * What the API would refuse in `value`, as the field errors it would answer, each at its pointer
 * under `/{part}` (`body`, `params`, `querystring`); none when the value holds to `schema`.
 */
export function schemaErrors(schema: object, value: unknown, part: string): FieldError[] {
  const [valid, errors] = Schema.Errors(schema as never, value);
  if (valid) return [];
  const issues = (errors as unknown as TypeBoxError[]).flatMap((error) => asAjvHas(schema, value, error));
  return fieldErrors(issues, part);
}
