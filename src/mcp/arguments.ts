import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fieldErrors, type SchemaIssue } from '../shared/field-errors.ts';
import { type InputSchema, pathProblem } from './operations.ts';

/** The problems of a call's arguments, one line each (`/page_id: is required`); empty when it may be made. */
export type ArgumentCheck = (args: Record<string, unknown>) => string[];

/**
 * The document is OpenAPI 3.1, whose schemas are JSON Schema 2020-12; strict, so that a keyword
 * this checker would not understand stops the MCP server at start rather than passing arguments
 * unchecked. `verbose` gives each error its schema and value, which its words are made of.
 */
const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true });
addFormats.default(ajv);

/**
 * A pointer at an argument, as an agent reads it: `/holdoutPercent`, `/content/headline`. The
 * server points into the request's parts (`/body/…`, `/querystring/…`, `/params/…`), and the
 * check here into the arguments (`/arguments/…`); an agent knows its arguments only.
 */
export function argumentPointer(path: string): string {
  return path.replace(/^\/(arguments|body|querystring|params)(?=\/)/, '');
}

/** The names an object of `issue`'s schema takes, for a refusal of a name it does not. */
function knownNames(issue: ErrorObject): string {
  const properties = (issue.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  const names = Object.keys(properties ?? {});
  return names.length > 0 ? `; the known ones are ${names.join(', ')}` : '; none are known here';
}

/** Ajv's errors in the words the API refuses a request with (src/shared/field-errors.ts). */
function schemaProblems(issues: ErrorObject[]): string[] {
  const unknown = new Map(
    issues
      .filter((issue) => issue.keyword === 'additionalProperties')
      .map((issue) => [
        `/arguments${issue.instancePath}/${String(issue.params.additionalProperty)}`,
        knownNames(issue),
      ]),
  );
  return fieldErrors(issues as SchemaIssue[], 'arguments').map(
    ({ path, message }) => `${argumentPointer(path)}: ${message}${unknown.get(path) ?? ''}`,
  );
}

/**
 * The check of a tool's arguments, compiled once: against `schema`, the very input schema the tool
 * lists, then each path argument against what would make the request call another endpoint (a
 * check that holds whatever patterns the document gives ids).
 */
export function argumentCheck(schema: InputSchema, pathArguments: string[]): ArgumentCheck {
  const validate = ajv.compile(schema);
  return (args) => {
    const turning = pathArguments.flatMap((name) => {
      const value = args[name];
      const problem = typeof value === 'string' ? pathProblem(value) : undefined;
      return problem ? [{ name, line: `/${name}: ${problem}` }] : [];
    });
    const problems = validate(args) ? [] : schemaProblems(validate.errors ?? []);
    // A value that would call another endpoint is named for that, once, rather than by its pattern.
    const named = (line: string) => turning.some(({ name }) => line.startsWith(`/${name}:`));
    return [...turning.map(({ line }) => line), ...problems.filter((line) => !named(line))];
  };
}
