import fc from 'fast-check';
import { png } from '../helpers/images.ts';
import { nameOf, type Operation, type Parameter } from './operations.ts';
import { arbitraryOf, textMutant, type Vocabulary } from './schema-arbitraries.ts';
import {
  Escaped,
  type FuzzValue,
  jsonText,
  Known,
  type Owner,
  plainText,
  type Resolve,
  urlText,
} from './values.ts';
import type { TenantIndex, World } from './world.ts';

/** How the request authenticates: the caller's key, its read-only or revoked key, none, or not a key. */
export type Credentials = 'key' | 'read-only' | 'revoked' | 'none' | 'wrong';

/** A body as generated: a JSON value, text sent as is, or bytes. Built into bytes when sent. */
export type PlannedBody =
  | { kind: 'json'; value: FuzzValue; contentType: string | undefined }
  /** A JSON value with bytes that are not UTF-8 written into its first string. */
  | { kind: 'broken'; value: FuzzValue; bad: number[] }
  | { kind: 'text'; text: string; contentType: string | undefined }
  | { kind: 'bytes'; bytes: Uint8Array; contentType: string | undefined };

/** A request as generated, before the run's known values are filled in. */
export class PlannedRequest {
  constructor(
    readonly operation: Operation,
    readonly caller: TenantIndex,
    readonly credentials: Credentials,
    readonly path: Record<string, FuzzValue>,
    readonly query: [string, FuzzValue][],
    /** Query text appended as is (`limit=1&limit=2`, `%ff=1`). */
    readonly rawQuery: string,
    /** Index of a link the service handed out for this operation, used instead of `path` and `query`. */
    readonly link: number | undefined,
    readonly body: PlannedBody | undefined,
    readonly idempotencyKey: string | undefined,
    /** Whether anything in it may be a mutant. */
    readonly mutate: boolean,
    /** A method sent instead of the operation's. */
    readonly otherMethod: string | undefined,
  ) {}

  [fc.toStringMethod](): string {
    return `${nameOf(this.operation)} as tenant ${this.caller} (${this.credentials}): ${fc.stringify({
      otherMethod: this.otherMethod,
      path: this.path,
      query: this.query,
      rawQuery: this.rawQuery,
      link: this.link,
      body: this.body?.kind === 'bytes' ? `${this.body.bytes.length} bytes` : this.body,
      idempotencyKey: this.idempotencyKey,
    })}`;
  }
}

/** A request ready to send. */
export interface SentRequest {
  planned: PlannedRequest;
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** The path parameters as sent, decoded. */
  path: Record<string, string>;
}

const TEXT_BODIES = [
  '',
  ' ',
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '1',
  'true',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2}',
  '\ufeff{}',
  '{}garbage',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  "{'a':1}",
  'NaN',
  '{"a":1e309}',
];
const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/vnd.api+json',
  'application/json-patch+json',
  undefined,
];
const NOT_UTF8 = [
  [0x80],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xff],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];
const ESCAPED_SEGMENTS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%ff%fe',
  '%2F',
  '..',
  '%2e%2e',
  '',
  '%20',
  '+',
  '%25',
  '.',
];
const RAW_QUERIES = [
  '',
  '',
  '',
  'limit=1&limit=2',
  '%ff=1',
  'limit=%ED%A0%80',
  '&&&',
  'a[b]=1',
  '__proto__[x]=1',
  'query',
];
const IDEMPOTENCY_KEYS = ['fuzz-1', 'fuzz-2', 'fuzz-3', ' ', 'k'.repeat(300)];
/** Methods sent instead of an operation's; `OPTIONS preflight` is OPTIONS with the CORS preflight headers. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OPTIONS preflight'];
const PREFLIGHT = { origin: 'http://127.0.0.1', 'access-control-request-method': 'POST' };
/** Bigger than any upload the service takes (10 MiB). */
const OVERSIZED_UPLOAD = 10 * 1024 * 1024 + 1;

const other = (owner: Owner): Owner => (owner === 'caller' ? 'other' : 'caller');

interface Draw {
  owner: Owner;
  context: number;
  mutate: boolean;
}

function pathValue(
  parameter: Parameter,
  together: string[],
  draw: Draw,
  vocabulary: Vocabulary,
): fc.Arbitrary<FuzzValue> {
  const fromContext = (owner: Owner) =>
    fc.constant(new Known(`context:${parameter.name}`, owner, draw.context, together));
  const choices: fc.WeightedArbitrary<FuzzValue>[] = [
    { weight: 12, arbitrary: fromContext(draw.owner) },
    { weight: 1, arbitrary: fromContext(other(draw.owner)) },
    { weight: 1, arbitrary: arbitraryOf(parameter.schema, parameter.name, vocabulary, false) },
  ];
  if (draw.mutate) {
    choices.push(
      { weight: 1, arbitrary: textMutant(parameter.schema) },
      { weight: 1, arbitrary: fc.constantFrom(...ESCAPED_SEGMENTS).map((text) => new Escaped(text)) },
    );
  }
  return fc.oneof(...choices);
}

function queryValue(parameter: Parameter, draw: Draw, vocabulary: Vocabulary) {
  const valid = arbitraryOf(parameter.schema, parameter.name, vocabulary, false);
  const choices: fc.WeightedArbitrary<FuzzValue | undefined>[] = [{ weight: 3, arbitrary: valid }];
  if (!parameter.required || draw.mutate) choices.push({ weight: 2, arbitrary: fc.constant(undefined) });
  if (draw.mutate) choices.push({ weight: 2, arbitrary: textMutant(parameter.schema) });
  return fc.oneof(...choices);
}

function queryOf(operation: Operation, draw: Draw, vocabulary: Vocabulary) {
  return fc
    .tuple(...operation.queryParameters.map((parameter) => queryValue(parameter, draw, vocabulary)))
    .map((values) =>
      operation.queryParameters.flatMap((parameter, index): [string, FuzzValue][] => {
        const value = values[index];
        return value === undefined ? [] : [[parameter.name, value]];
      }),
    );
}

function jsonBody(operation: Operation, draw: Draw, vocabulary: Vocabulary): fc.Arbitrary<PlannedBody> {
  const schema = operation.body?.schema ?? {};
  const value = arbitraryOf(schema, '', vocabulary, draw.mutate);
  const json = value.map(
    (item): PlannedBody => ({ kind: 'json', value: item, contentType: 'application/json' }),
  );
  if (!draw.mutate) return json;
  return fc.oneof(
    { weight: 12, arbitrary: json },
    {
      weight: 1,
      arbitrary: fc
        .tuple(value, fc.constantFrom(...CONTENT_TYPES))
        .map(([item, contentType]): PlannedBody => ({ kind: 'json', value: item, contentType })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...TEXT_BODIES)
        .map((text): PlannedBody => ({ kind: 'text', text, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(arbitraryOf(schema, '', vocabulary, false), fc.constantFrom(...NOT_UTF8))
        .map(([item, bad]): PlannedBody => ({ kind: 'broken', value: item, bad })),
    },
  );
}

function uploadBody(operation: Operation, draw: Draw): fc.Arbitrary<PlannedBody> {
  const types = operation.body?.contentTypes ?? [];
  const image = fc
    .tuple(fc.nat(255), fc.nat(255), fc.nat(255))
    .map(([red, green, blue]) => new Uint8Array(png(red, green, blue)));
  const upload = fc
    .tuple(image, fc.constantFrom(...types.filter((type) => type === 'image/png')))
    .map(([bytes, contentType]): PlannedBody => ({ kind: 'bytes', bytes, contentType }));
  if (!draw.mutate) return upload;
  const anyType = fc.constantFrom<string | undefined>(
    ...types,
    'application/json',
    'image/png; charset=utf-8',
    undefined,
  );
  return fc.oneof(
    { weight: 20, arbitrary: upload },
    {
      weight: 10,
      arbitrary: fc
        .tuple(image, anyType)
        .map(([bytes, contentType]): PlannedBody => ({ kind: 'bytes', bytes, contentType })),
    },
    {
      weight: 10,
      arbitrary: fc
        .tuple(fc.uint8Array({ maxLength: 64 }), anyType)
        .map(([bytes, contentType]): PlannedBody => ({ kind: 'bytes', bytes, contentType })),
    },
    {
      weight: 5,
      arbitrary: fc
        .constantFrom(
          '<svg xmlns="http://www.w3.org/2000/svg"/>',
          '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
          '<svg',
          '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><svg>&e;</svg>',
        )
        .map((text): PlannedBody => ({ kind: 'text', text, contentType: 'image/svg+xml' })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<PlannedBody>({
        kind: 'bytes',
        bytes: new Uint8Array(OVERSIZED_UPLOAD),
        contentType: 'image/png',
      }),
    },
  );
}

/** A body where the operation takes none: ignored or refused, never a failure. */
function unexpectedBody(operation: Operation, draw: Draw): fc.Arbitrary<PlannedBody | undefined> {
  if (!draw.mutate || operation.method === 'GET') return fc.constant(undefined);
  const text = fc
    .constantFrom(...TEXT_BODIES)
    .map((item): PlannedBody => ({ kind: 'text', text: item, contentType: 'application/json' }));
  return fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: text });
}

function bodyOf(
  operation: Operation,
  draw: Draw,
  vocabulary: Vocabulary,
): fc.Arbitrary<PlannedBody | undefined> {
  if (!operation.body) return unexpectedBody(operation, draw);
  const body = operation.body.binary ? uploadBody(operation, draw) : jsonBody(operation, draw, vocabulary);
  return draw.mutate || !operation.body.required
    ? fc.oneof({ weight: 12, arbitrary: body }, { weight: 1, arbitrary: fc.constant(undefined) })
    : body;
}

/** Requests to one operation: mostly valid, many with mutations somewhere. */
function requestsTo(operation: Operation, vocabulary: Vocabulary): fc.Arbitrary<PlannedRequest> {
  const together = operation.pathParameters.map((parameter) => parameter.name);
  const credentials: fc.Arbitrary<Credentials> = operation.isPublic
    ? fc.constant('none')
    : fc.oneof(
        { weight: 16, arbitrary: fc.constant<Credentials>('key') },
        { weight: 2, arbitrary: fc.constant<Credentials>('read-only') },
        { weight: 2, arbitrary: fc.constantFrom<Credentials>('revoked', 'none', 'wrong') },
      );
  const otherMethod = fc.constantFrom(...METHODS.filter((method) => method !== operation.method));
  const draw = fc.record({
    owner: fc.constantFrom<Owner>('caller', 'caller', 'caller', 'other'),
    context: fc.nat(),
    mutate: fc.constantFrom(false, true, true),
  });
  return fc
    .tuple(fc.constantFrom<TenantIndex>(0, 1), credentials, draw)
    .chain(([caller, credential, drawn]) =>
      fc
        .record({
          path: fc.record(
            Object.fromEntries(
              operation.pathParameters.map((parameter) => [
                parameter.name,
                pathValue(parameter, together, drawn, vocabulary),
              ]),
            ),
          ),
          query: queryOf(operation, drawn, vocabulary),
          rawQuery: drawn.mutate ? fc.constantFrom(...RAW_QUERIES) : fc.constant(''),
          link: fc.option(fc.nat(), { freq: 3 }),
          body: bodyOf(operation, drawn, vocabulary),
          otherMethod: drawn.mutate
            ? fc.oneof(
                { weight: 20, arbitrary: fc.constant(undefined) },
                { weight: 1, arbitrary: otherMethod },
              )
            : fc.constant(undefined),
          idempotencyKey:
            operation.method === 'POST' && !operation.isPublic
              ? fc.oneof(
                  { weight: 10, arbitrary: fc.constant(undefined) },
                  { weight: 1, arbitrary: fc.constantFrom(...IDEMPOTENCY_KEYS) },
                )
              : fc.constant(undefined),
        })
        .map(
          (parts) =>
            new PlannedRequest(
              operation,
              caller,
              credential,
              parts.path,
              parts.query,
              parts.rawQuery,
              parts.link ?? undefined,
              parts.body,
              parts.idempotencyKey,
              drawn.mutate,
              parts.otherMethod,
            ),
        ),
    );
}

/** Requests to every operation, each about as likely. */
export function requestArbitrary(
  operations: Operation[],
  vocabularyOf: (operation: Operation) => Vocabulary,
): fc.Arbitrary<PlannedRequest> {
  return fc.oneof(...operations.map((operation) => requestsTo(operation, vocabularyOf(operation))));
}

function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '([^/?]+)')}(?:\\?|$)`);
}

/** A link the service handed out to the caller for this operation, when `planned` asks for one. */
function linkFor(planned: PlannedRequest, world: World): string | undefined {
  if (planned.link === undefined) return undefined;
  const pattern = templatePattern(planned.operation.template);
  const links = (world.tenants[planned.caller].pools.get('link') ?? []).filter((link) => pattern.test(link));
  return links[planned.link % Math.max(links.length, 1)];
}

function bodyBytes(body: PlannedBody, resolve: Resolve): Buffer {
  switch (body.kind) {
    case 'json':
      return Buffer.from(jsonText(body.value, resolve));
    case 'text':
      return Buffer.from(body.text);
    case 'bytes':
      return Buffer.from(body.bytes);
    case 'broken': {
      const text = jsonText(body.value, resolve);
      const at = text.indexOf(':"');
      const bad = Buffer.from(body.bad);
      if (at < 0) return Buffer.concat([Buffer.from('{"'), bad, Buffer.from('":1}')]);
      return Buffer.concat([Buffer.from(text.slice(0, at + 2)), bad, Buffer.from(text.slice(at + 2))]);
    }
  }
}

function contentTypeOf(body: PlannedBody): string | undefined {
  return body.kind === 'broken' ? 'application/json' : body.contentType;
}

/** Fills in the run's known values: the request exactly as it goes out. */
export function materialize(planned: PlannedRequest, world: World): SentRequest {
  const resolve: Resolve = (known) => world.resolve(known, planned.caller);
  const operation = planned.operation;
  const path = Object.fromEntries(
    Object.entries(planned.path).map(([name, value]) => [name, plainText(value, resolve)]),
  );
  let url = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    urlText(planned.path[name] ?? '', resolve),
  );
  const query = planned.query.map(
    ([name, value]) => `${encodeURIComponent(name)}=${urlText(value, resolve)}`,
  );
  if (planned.rawQuery) query.push(planned.rawQuery);
  if (query.length > 0) url += `?${query.join('&')}`;
  const link = linkFor(planned, world);
  // A handed-out link, with the generated query after it only when that may be a mutant.
  const linked = link && (planned.mutate && query.length > 0 ? `${link}&${query.join('&')}` : link);
  const [method = operation.method, preflight] = planned.otherMethod?.split(' ') ?? [];
  const apiKey = world.tenants[planned.caller].keys[planned.credentials];
  const headers: Record<string, string> = {
    ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
    ...(planned.idempotencyKey === undefined ? {} : { 'idempotency-key': planned.idempotencyKey }),
    ...(preflight ? PREFLIGHT : {}),
  };
  // fetch sends no body with a GET.
  const sent = method === 'GET' ? undefined : planned.body;
  const body = sent && bodyBytes(sent, resolve);
  const contentType = sent && contentTypeOf(sent);
  if (contentType) headers['content-type'] = contentType;
  return { planned, method, url: linked || url, headers, body, path: linked ? {} : path };
}
