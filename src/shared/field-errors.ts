import type { FieldError } from './errors.ts';
import { countOf, lengthOf, nounOf, numberInWords, type Rules, shapeOf, unionOf } from './rules-in-words.ts';
import { stableStringify } from './stable-json.ts';

/**
 * One error of a JSON Schema check as Ajv reports it when compiled with `verbose`
 * (src/http/validation.ts): it carries its schema and value. The console's check before sending
 * (schema-check.ts) reports TypeBox's errors in this form, so that a request refused by either
 * reads the same.
 */
export interface SchemaIssue {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Rules;
  data?: unknown;
}

/** A field error, with where in the schema it was found (a union's members' errors are found under it). */
interface Found extends FieldError {
  schemaPath: string;
}

function lengthIn(data: unknown): number {
  if (typeof data === 'string') return [...data].length;
  if (Array.isArray(data)) return data.length;
  return typeof data === 'object' && data !== null ? Object.keys(data).length : 0;
}

/** " (it has 112)": how much a value holds, beside a limit it passed. */
function holding(data: unknown): string {
  return ` (it has ${numberInWords(lengthIn(data))})`;
}

/**
 * " (items 1 and 3 are alike)": the first item that repeats an earlier one, found in the value itself
 * (checkers name different pairs of the same list).
 */
function repeated(data: unknown): string {
  const items = Array.isArray(data) ? data.map(stableStringify) : [];
  const later = items.findIndex((item, index) => items.indexOf(item) < index);
  return later < 0 ? '' : ` (items ${items.indexOf(items[later] ?? '') + 1} and ${later + 1} are alike)`;
}

/** The message of one error, in words: what the value must be, with an example where it has a shape. */
function messageOf(issue: SchemaIssue): string {
  const rules = issue.parentSchema ?? {};
  const { keyword, params, data } = issue;
  switch (keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must have ${lengthOf(rules)}${holding(data)}`;
    case 'maxLength':
      return `must have ${lengthOf(rules)}${holding(data)}`;
    case 'pattern': {
      const shape = shapeOf(rules);
      return shape ? `must be ${shape}` : `must match the pattern ${String(params.pattern)}`;
    }
    case 'format':
    case 'type':
    case 'enum':
    case 'const':
    case 'minimum':
    case 'maximum':
      return `must be ${nounOf(rules)}`;
    case 'minItems':
      return `must have at least ${countOf(Number(params.limit), 'item')}${holding(data)}`;
    case 'maxItems':
      return `must have at most ${countOf(Number(params.limit), 'item')}${holding(data)}`;
    case 'maxProperties':
      return `must have at most ${countOf(Number(params.limit), 'field')}${holding(data)}`;
    case 'uniqueItems':
      return `must not hold the same value twice${repeated(data)}`;
    default:
      return issue.message ?? 'is invalid';
  }
}

function jsonTypeOf(data: unknown): string {
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'array';
  if (typeof data === 'number') return Number.isInteger(data) ? 'integer' : 'number';
  return typeof data;
}

/** Whether a union's member may hold a value of `data`'s type (an integer is a number too). */
function fits(member: Rules, data: unknown): boolean {
  if (member.type === undefined) return true;
  const types = Array.isArray(member.type) ? member.type : [member.type];
  const type = jsonTypeOf(data);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/**
 * A union that no member accepted: the errors of the one member its value's type fits, when only
 * one does (a nullable phone number given text is held to the phone number's shape); else one error
 * saying every member ("must be a date and time such as … or a timestamp such as …").
 */
function unionErrors(issue: SchemaIssue, found: Found[], path: string): Found[] {
  const members = issue.parentSchema?.anyOf ?? [];
  const under = `${issue.schemaPath}/`;
  const fitting = members.flatMap((member, index) => (fits(member, issue.data) ? [index] : []));
  const [only] = fitting;
  const kept =
    fitting.length === 1 ? found.filter((error) => error.schemaPath.startsWith(`${under}${only}/`)) : [];
  const others = found.filter((error) => !error.schemaPath.startsWith(under));
  if (kept.length > 0) return [...others, ...kept];
  return [...others, { path, message: `must be ${unionOf(members)}`, schemaPath: issue.schemaPath }];
}

/**
 * A check's errors for one part of a request (`body`, `querystring`, `params`, `headers`) as field
 * errors in words, each at its JSON pointer (`/body/name`); a field missing or unknown is named by
 * its own pointer.
 */
export function fieldErrors(issues: SchemaIssue[], part: string): FieldError[] {
  let found: Found[] = [];
  for (const issue of issues) {
    const field = issue.params.missingProperty ?? issue.params.additionalProperty;
    const path = `/${part}${issue.instancePath}${field === undefined ? '' : `/${String(field)}`}`;
    if (issue.keyword === 'anyOf') found = unionErrors(issue, found, path);
    else found.push({ path, message: messageOf(issue), schemaPath: issue.schemaPath });
  }
  return found.map(({ path, message }) => ({ path, message }));
}
