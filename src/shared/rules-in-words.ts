/**
 * A JSON schema's rules said as people say them: "at most 90 characters", "a whole number from 0 to
 * 50", "a path such as /platform/tom-becker: …". The refusals of the API and of the console before it
 * sends (field-errors.ts) and the console's limits, stated beside each input before anything is
 * typed, are made of the same words.
 *
 * A patterned string says its shape in its `description`: the first sentence is a noun phrase naming
 * an example ("A phone number in international form such as +14155550100: …"), which a refusal says
 * as "must be a phone number …". tests/http/validation-messages.test.ts holds every patterned field
 * of the OpenAPI document to that.
 */

/** The keywords of a schema that these words read (JSON Schema 2020-12, as TypeBox writes them). */
export interface Rules {
  type?: string | string[];
  description?: string;
  examples?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Rules[];
}

/** What a value of a `format` looks like. */
const FORMATS: Record<string, string> = {
  'date-time': 'a date and time such as 2026-01-31T09:00:00Z',
  date: 'a date such as 2026-01-31',
  email: 'an email address such as jane@acme.com',
  uri: 'an absolute URL such as https://acme.com/spring',
};

const TYPES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

/** "10,000": a number as people write it. */
export function numberInWords(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** "1 character", "90 characters". */
export function countOf(count: number, noun: string): string {
  return `${numberInWords(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** "10 MiB", "64 KiB", "512 bytes": a size as people read it. */
export function sizeOf(bytes: number): string {
  if (bytes >= 1_048_576) return `${numberInWords(Math.round((bytes / 1_048_576) * 10) / 10)} MiB`;
  if (bytes >= 1024) return `${numberInWords(Math.round(bytes / 1024))} KiB`;
  return countOf(bytes, 'byte');
}

/** "a, b or c". */
export function oneOf(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

function lowerFirst(text: string): string {
  return /^An? /.test(text) ? text[0]?.toLowerCase() + text.slice(1) : text;
}

/** The first sentence of a description: a sentence ends at a full stop followed by a space or the end. */
function firstSentence(text: string): string {
  return text.split(/\.(?:\s|$)/)[0] ?? text;
}

/**
 * A string's shape: a patterned one's from the first sentence of its description ("a path such as
 * /platform/…"), else its format's ("an email address such as jane@acme.com").
 */
export function shapeOf(rules: Rules): string | undefined {
  if (rules.pattern !== undefined && rules.description !== undefined)
    return lowerFirst(firstSentence(rules.description));
  return rules.format === undefined ? undefined : FORMATS[rules.format];
}

/** "from 0 to 50", "at least 100", "at most 1"; undefined without bounds. */
export function rangeOf(rules: Rules): string | undefined {
  const { minimum } = rules;
  // The largest integer JSON carries exactly is the bound of a number that has none a person meets.
  const maximum = (rules.maximum ?? 0) >= Number.MAX_SAFE_INTEGER ? undefined : rules.maximum;
  if (minimum !== undefined && maximum !== undefined)
    return `from ${numberInWords(minimum)} to ${numberInWords(maximum)}`;
  if (minimum !== undefined) return `at least ${numberInWords(minimum)}`;
  if (maximum !== undefined) return `at most ${numberInWords(maximum)}`;
  return undefined;
}

/** "at most 90 characters", "8 to 64 characters"; undefined when the length is free (or only non-empty). */
export function lengthOf(rules: Rules): string | undefined {
  const { minLength = 0, maxLength } = rules;
  if (rules.format === 'binary') return maxLength === undefined ? undefined : `at most ${sizeOf(maxLength)}`;
  if (maxLength !== undefined && minLength > 1)
    return `${numberInWords(minLength)} to ${countOf(maxLength, 'character')}`;
  if (maxLength !== undefined) return `at most ${countOf(maxLength, 'character')}`;
  if (minLength > 1) return `at least ${countOf(minLength, 'character')}`;
  return undefined;
}

function typesOf(rules: Rules): string[] {
  if (rules.type === undefined) return [];
  return Array.isArray(rules.type) ? rules.type : [rules.type];
}

/** "a whole number from 0 to 50", "a number at least 0.001". */
function numberOf(rules: Rules): string | undefined {
  const type = typesOf(rules).find((each) => each === 'integer' || each === 'number');
  if (type === undefined) return undefined;
  return [TYPES[type], rangeOf(rules)].filter(Boolean).join(' ');
}

function valueInWords(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * What a value of `rules` is, as a noun phrase: its shape, its number and range, its choices or its
 * type ("a phone number …", "a whole number from 0 to 50", "one of inbound or outbound", "null"). A
 * union says each of its members: "a date and time such as … or a timestamp such as …".
 */
export function nounOf(rules: Rules): string {
  if (rules.anyOf) return unionOf(rules.anyOf);
  if (rules.const !== undefined) return valueInWords(rules.const);
  // A choice of one is that value: the OpenAPI document writes a route's `const` so.
  if (rules.enum?.length === 1) return valueInWords(rules.enum[0]);
  if (rules.enum) return `one of ${oneOf(rules.enum.map(valueInWords))}`;
  const shape = shapeOf(rules) ?? numberOf(rules);
  if (shape) return shape;
  return oneOf(typesOf(rules).map((type) => TYPES[type] ?? type)) || 'a value';
}

/** The members of a union in words, null last and apart: "a phone number …, or null". */
export function unionOf(members: Rules[]): string {
  const isNull = (member: Rules) => typesOf(member).join() === 'null';
  const nouns = [...new Set(members.filter((member) => !isNull(member)).map(nounOf))];
  const some = nouns.every((noun) => /^[^ ]+$/.test(noun)) ? `one of ${oneOf(nouns)}` : oneOf(nouns);
  return members.some(isNull) ? `${some}, or null` : some;
}

/**
 * What `rules` asks of a value, for people to read before they type one: "At most 255 characters",
 * "A path such as /platform/tom-becker: …", "A whole number from 0 to 50". Nothing for a choice
 * (a list of choices shows them), a flag or a value without limits. A nullable value says the rules
 * of what it is when it is not null.
 */
export function limitsOf(rules: Rules): string[] {
  const members = rules.anyOf?.filter((member) => typesOf(member).join() !== 'null');
  if (members && members.length === 1 && members[0]) return limitsOf(members[0]);
  if (members)
    return members.some((member) => member.enum || member.const !== undefined) ? [] : [unionOf(members)];
  if (rules.enum || rules.const !== undefined) return [];
  const phrases = [shapeOf(rules) ?? numberOf(rules), lengthOf(rules)];
  if (rules.maxItems !== undefined) phrases.push(`at most ${countOf(rules.maxItems, 'item')}`);
  return phrases.filter((phrase): phrase is string => Boolean(phrase)).map(capitalized);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
