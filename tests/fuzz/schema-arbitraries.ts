import fc from 'fast-check';
import { Deep, type FuzzValue, Huge, NumberText } from './values.ts';

/** The part of JSON Schema that the OpenAPI document uses. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** What the generators need from the run beyond the schema. */
export interface Vocabulary {
  /** Values the run knows for a field or parameter of this name (real ids, tokens, cursors), if any. */
  known(name: string): fc.Arbitrary<FuzzValue> | undefined;
  /** URLs on this machine: the only absolute http(s) URLs the fuzz ever sends. */
  localUrl: fc.Arbitrary<string>;
}

/** Out of this many nodes of a mutated value, about one is replaced by a mutant. */
const MUTATION_ODDS = 8;
/** Longest string, array or map generated as a valid value (constraints permitting). */
const SHORT = 24;
const SHORT_ITEMS = 4;

const MUTANTS_OF_ANY_TYPE: FuzzValue[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  '',
  'text',
  [],
  {},
  [null],
  { '': null },
  new NumberText('1e309'),
  new NumberText('-0'),
];

const HOSTILE_STRINGS = [
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202e\u0301',
  '\r\n',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  'null',
  'true',
  '__proto__',
  'constructor',
  '%00',
  '%ff',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '😀😀😀',
];

/**
 * Valid text that search and storage must take literally: LIKE and FTS syntax, quotes, escapes,
 * and letters whose case mapping changes their length.
 */
const TRICKY_STRINGS = [
  '%',
  '_',
  '%_%',
  '\\',
  '\\%',
  '"',
  "'",
  '*',
  '"a" OR "b"',
  'NEAR(a b)',
  'a AND NOT b',
  '-x',
  '^a',
  'col:val',
  '()',
  '\u0130stanbul',
  'STRASSE stra\u00dfe',
  '\ufb01',
  'e\u0301',
  '\u01c4',
  '\ud83d\ude00',
];

const NUMBER_TEXTS = ['1e309', '-1e309', '1.0', '1e2', '-0', '0.0000001', '123456789012345678901234567890'];

/** Nesting far beyond any schema: a parser or validator that recurses must not fall over. */
const DEPTHS = [1000, 1500, 50_000, 300_000];

const validText = (text: string) => !text.includes('\u0000') && text.isWellFormed();

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

function branchesOf(schema: JsonSchema): JsonSchema[] | undefined {
  if (schema.anyOf ?? schema.oneOf) return schema.anyOf ?? schema.oneOf;
  if (Array.isArray(schema.type)) return schema.type.map((type) => ({ ...schema, type }));
  return undefined;
}

function withinLength(schema: JsonSchema) {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  return (text: string) => {
    const length = [...text].length;
    return length >= min && length <= max;
  };
}

/** A URL-shaped pattern or format: its values are taken from this machine, never a public host. */
function localized(arbitrary: fc.Arbitrary<string>, vocabulary: Vocabulary): fc.Arbitrary<string> {
  return fc
    .tuple(arbitrary, vocabulary.localUrl)
    .map(([text, url]) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? url : text));
}

function validString(schema: JsonSchema, vocabulary: Vocabulary): fc.Arbitrary<string> {
  const fits = withinLength(schema);
  if (schema.format === 'uri') return vocabulary.localUrl.filter(fits);
  if (schema.format === 'email') {
    const local = fc.stringMatching(/^[a-z0-9]{1,12}([.+_-][a-z0-9]{1,8})?$/);
    return fc
      .tuple(local, fc.constantFrom('example.com', 'acme.example', 'mail.example.org'))
      .map(([name, domain]) => `${name}@${domain}`)
      .filter(fits);
  }
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    // fast-check draws no lookahead (a brand id's "not . or .."): drawn without, kept when it holds.
    const drawn = new RegExp(schema.pattern.replace(/\(\?[=!][^)]*\)/g, ''), 'u');
    return localized(fc.stringMatching(drawn), vocabulary).filter(
      (text) => fits(text) && validText(text) && pattern.test(text),
    );
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? SHORT, Math.max(minLength, SHORT));
  const choices: fc.WeightedArbitrary<string>[] = [
    { weight: 6, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
    { weight: 2, arbitrary: fc.string({ minLength, maxLength, unit: 'binary' }).filter(validText) },
  ];
  const tricky = TRICKY_STRINGS.filter(fits);
  if (tricky.length > 0) choices.push({ weight: 2, arbitrary: fc.constantFrom(...tricky) });
  if (schema.maxLength !== undefined) {
    choices.push({ weight: 1, arbitrary: fc.constant('m'.repeat(schema.maxLength)) });
  }
  return fc.oneof(...choices);
}

function integerRange(schema: JsonSchema): { min: number; max: number } {
  return {
    min: Math.max(schema.minimum ?? Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
    max: Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
  };
}

function validInteger(schema: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = integerRange(schema);
  const near = (from: number) => fc.integer({ min: Math.max(min, from), max: Math.min(max, from + 1000) });
  return fc.oneof(
    { weight: 4, arbitrary: near(Math.max(min, -500)) },
    { weight: 1, arbitrary: fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

function validNumber(schema: JsonSchema): fc.Arbitrary<number> {
  return fc.double({
    min: schema.minimum ?? -1e12,
    max: schema.maximum ?? 1e12,
    noNaN: true,
    noDefaultInfinity: true,
  });
}

function validArray(schema: JsonSchema, vocabulary: Vocabulary, mutate: boolean): fc.Arbitrary<FuzzValue> {
  const item = arbitraryOf(schema.items ?? {}, '', vocabulary, mutate);
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.min(schema.maxItems ?? SHORT_ITEMS, Math.max(minLength, SHORT_ITEMS));
  return schema.uniqueItems
    ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
    : fc.array(item, { minLength, maxLength });
}

/** The properties of an object: the required ones always, each optional one half the time. */
function declaredProperties(
  schema: JsonSchema,
  vocabulary: Vocabulary,
  mutate: boolean,
): fc.Arbitrary<[string, FuzzValue][]> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const value = arbitraryOf(property, name, vocabulary, mutate).map((item): [string, FuzzValue] => [
      name,
      item,
    ]);
    return required.has(name) ? value : fc.option(value, { freq: 2, nil: undefined });
  });
  return fc.tuple(...entries).map((present) => present.filter((entry) => entry !== undefined));
}

function validObject(schema: JsonSchema, vocabulary: Vocabulary, mutate: boolean): fc.Arbitrary<FuzzValue> {
  const declared = declaredProperties(schema, vocabulary, mutate);
  const extra = schema.additionalProperties;
  const names = fc
    .string({
      minLength: schema.propertyNames?.minLength ?? 0,
      maxLength: schema.propertyNames?.maxLength ?? SHORT,
    })
    .filter(validText);
  const more =
    typeof extra === 'object'
      ? fc.uniqueArray(fc.tuple(names, arbitraryOf(extra, '', vocabulary, mutate)), {
          maxLength: Math.min(schema.maxProperties ?? SHORT_ITEMS, SHORT_ITEMS),
          selector: ([name]) => name,
        })
      : fc.constant([]);
  // Object.fromEntries makes every key an own property, `__proto__` included.
  return fc.tuple(declared, more).map(([known, added]) => Object.fromEntries([...added, ...known]));
}

/** A value the schema accepts, whose parts may be mutants when `mutate`. */
function structured(
  schema: JsonSchema,
  name: string,
  vocabulary: Vocabulary,
  mutate: boolean,
): fc.Arbitrary<FuzzValue> {
  const branches = branchesOf(schema);
  if (branches) return fc.oneof(...branches.map((branch) => arbitraryOf(branch, name, vocabulary, mutate)));
  if (schema.const !== undefined) return fc.constant(schema.const as FuzzValue);
  if (schema.enum) return fc.constantFrom(...(schema.enum as FuzzValue[]));
  const [type] = typesOf(schema);
  switch (type) {
    case 'string':
      return validString(schema, vocabulary);
    case 'integer':
      return validInteger(schema);
    case 'number':
      return validNumber(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return validArray(schema, vocabulary, mutate);
    case 'object':
      return validObject(schema, vocabulary, mutate);
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<FuzzValue>;
  }
}

function stringMutants(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
  const lengths: FuzzValue[] = [new Huge('\u00e9', 100_000), new Huge('\ud835\udcb3', 60_000)];
  if (schema.maxLength !== undefined) lengths.push(new Huge('x', schema.maxLength + 1));
  if ((schema.minLength ?? 0) > 1) lengths.push(new Huge('x', (schema.minLength ?? 0) - 1));
  const enumMutants = (schema.enum ?? []).flatMap((value) =>
    typeof value === 'string' ? [value.toUpperCase(), ` ${value}`, `${value}\u0000`] : [],
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS, ...enumMutants) },
    { weight: 2, arbitrary: fc.constantFrom(...lengths) },
    { weight: 1, arbitrary: fc.constant(new Huge('a', 1_100_000)) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: SHORT }) },
  );
}

function numberMutants(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
  const bounds: FuzzValue[] = [0, -1, 0.5, 2 ** 53, -(2 ** 53), 1e308, -1e308, '1', '0x10'];
  if (schema.minimum !== undefined) bounds.push(schema.minimum - 1);
  if (schema.maximum !== undefined) bounds.push(schema.maximum + 1);
  return fc.oneof(
    fc.constantFrom(...bounds),
    fc.constantFrom(...NUMBER_TEXTS.map((text) => new NumberText(text))),
  );
}

/** A JSON object (not an array or a marker), whatever keys it has: `constructor` may be one of them. */
function isObject(value: FuzzValue): value is { [key: string]: FuzzValue } {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

function withKey(value: FuzzValue, key: string, item: FuzzValue): FuzzValue {
  return isObject(value) ? Object.fromEntries([...Object.entries(value), [key, item]]) : value;
}

function withoutKey(value: FuzzValue, key: string | undefined): FuzzValue {
  if (key === undefined || !isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => name !== key));
}

function objectMutants(schema: JsonSchema, name: string, vocabulary: Vocabulary): fc.Arbitrary<FuzzValue> {
  const valid = structured(schema, name, vocabulary, false);
  const required = schema.required ?? [];
  return fc.oneof(
    fc
      .tuple(valid, fc.constantFrom('unknownField', 'Name', 'tenantId', 'id', 'createdAt'))
      .map(([value, key]) => withKey(value, key, 'surprise')),
    valid.map((value) => withKey(value, '__proto__', { polluted: true })),
    valid.map((value) => withKey(value, 'constructor', { prototype: { polluted: true } })),
    fc
      .tuple(valid, fc.nat())
      .map(([value, index]) => withoutKey(value, required[index % Math.max(required.length, 1)])),
  );
}

function arrayMutants(schema: JsonSchema, vocabulary: Vocabulary): fc.Arbitrary<FuzzValue> {
  const item = arbitraryOf(schema.items ?? {}, '', vocabulary, false);
  const tooMany = (schema.maxItems ?? 1000) + 1;
  return fc.oneof(
    fc.array(item, { minLength: tooMany, maxLength: tooMany }),
    fc.constant<FuzzValue>([null]),
    item.map((value) => [value, value]),
  );
}

/** A value that the schema probably refuses: wrong types, bounds crossed, hostile text, depth. */
function mutantOf(schema: JsonSchema, name: string, vocabulary: Vocabulary): fc.Arbitrary<FuzzValue> {
  const [type] = typesOf(schema);
  const choices: fc.Arbitrary<FuzzValue>[] = [
    fc.constantFrom(...MUTANTS_OF_ANY_TYPE),
    fc
      .constantFrom(...DEPTHS)
      .chain((depth) => fc.constantFrom(new Deep('array', depth), new Deep('object', depth))),
    stringMutants(schema),
  ];
  if (type === 'integer' || type === 'number') choices.push(numberMutants(schema), numberMutants(schema));
  if (type === 'object')
    choices.push(objectMutants(schema, name, vocabulary), objectMutants(schema, name, vocabulary));
  if (type === 'array') choices.push(arrayMutants(schema, vocabulary));
  return fc.oneof(...choices);
}

/**
 * Values for `schema` at a field or parameter called `name`: valid ones (with the run's known
 * values for that name mixed in) and, when `mutate`, mutants anywhere in the tree.
 */
export function arbitraryOf(
  schema: JsonSchema,
  name: string,
  vocabulary: Vocabulary,
  mutate: boolean,
): fc.Arbitrary<FuzzValue> {
  const known = vocabulary.known(name);
  const valid = structured(schema, name, vocabulary, mutate);
  const value = known ? fc.oneof({ weight: 3, arbitrary: known }, { weight: 1, arbitrary: valid }) : valid;
  if (!mutate) return value;
  return fc.oneof(
    { weight: MUTATION_ODDS, arbitrary: value },
    { weight: 1, arbitrary: mutantOf(schema, name, vocabulary) },
  );
}

/** Text for a query parameter or path segment that the schema probably refuses. */
export function textMutant(schema: JsonSchema): fc.Arbitrary<FuzzValue> {
  return fc.oneof(
    stringMutants(schema),
    numberMutants(schema),
    fc.constantFrom('', 'abc', '1.5', '1e3', '101', '[]', '{}', 'false', '0', '-0'),
  );
}
