import type { Failure } from './api.ts';

/**
 * The rules this server advertises for its requests: the schemas of its OpenAPI document
 * (`GET /v0/openapi.json`, which needs no key, the document the typed client is generated from).
 * The console reads a request's limits there to state them before input, and checks a body there
 * before it sends it: it sends nothing the API's own schema refuses. Read once per load of the
 * console, with the first view that needs it; the checker (TypeBox's, which interprets a schema
 * without compiling code, as the console's policy allows no eval) comes with it.
 */

/** The part of a JSON Schema the console reads limits from. */
export interface JsonSchema {
  type?: string;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

interface Advertised {
  schemas: Record<string, JsonSchema>;
  checker: typeof import('typebox/schema').default;
}

let advertised: Promise<Advertised> | undefined;

function load(): Promise<Advertised> {
  advertised ??= Promise.all([
    fetch('/v0/openapi.json').then((answer) => {
      if (!answer.ok) throw new Error(`The server answered ${answer.status} for its OpenAPI document`);
      return answer.json() as Promise<{ components: { schemas: Record<string, JsonSchema> } }>;
    }),
    import('typebox/schema'),
  ]).then(([document, checker]) => ({ schemas: document.components.schemas, checker: checker.default }));
  // A failed read is tried again by the next view that needs it.
  advertised.catch(() => {
    advertised = undefined;
  });
  return advertised;
}

/** The request schema the server advertises under `name` (`AudienceVersionUpdate`). */
export async function advertisedSchema(name: string): Promise<JsonSchema> {
  const schema = (await load()).schemas[name];
  if (!schema) throw new Error(`The server advertises no schema ${name}`);
  return schema;
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: { limit?: number };
  message: string;
}

/** What a schema error asks of the writer, in words. */
function inWords({ keyword, params, message }: SchemaError): string {
  if (keyword === 'maxLength') return `is longer than ${params.limit} characters: shorten it`;
  if (keyword === 'minLength' && params.limit === 1) return 'is empty: write something, or remove it';
  if (keyword === 'minLength') return `is shorter than ${params.limit} characters`;
  if (keyword === 'maxItems') return `has more than ${params.limit}: remove one`;
  return message;
}

/** A request the console did not send: its body breaks the schema the server advertises. */
export class NotSent extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail);
  }
}

/** The part a pointer names, in words: `/content/sections/1/body` is "Section 2's body". */
function partNamed(pointer: string): string {
  const parts = pointer.split('/').filter(Boolean);
  const at = (from: number) => parts.at(from) ?? '';
  const item = (list: string, index: string) => `${list.replace(/s$/, '')} ${Number(index) + 1}`;
  const named = /^\d+$/.test(at(-1))
    ? item(at(-2), at(-1))
    : /^\d+$/.test(at(-2))
      ? `${item(at(-3), at(-2))}'s ${at(-1)}`
      : at(-1) || 'The request';
  return named.charAt(0).toUpperCase() + named.slice(1);
}

/**
 * Checks a request body against the schema the server advertises under `name`; when it breaks it,
 * throws NotSent with a field error per part, named by its JSON pointer under /body as the API's
 * would be, so that each shows beside its field. Nothing is sent.
 */
export async function checkBody(name: string, body: unknown): Promise<void> {
  const [schema, { checker }] = await Promise.all([advertisedSchema(name), load()]);
  const [valid, errors] = checker.Errors(schema as never, body) as [boolean, SchemaError[]];
  if (valid) return;
  // A refused property is reported twice (as `false` and as an additional property): once is enough.
  const shown = errors.filter((error) => error.keyword !== 'boolean');
  throw new NotSent({
    title: 'Not sent',
    detail: shown.map((error) => `${partNamed(error.instancePath)} ${inWords(error)}.`).join(' '),
    errors: shown.map((error) => ({ path: `/body${error.instancePath}`, message: inWords(error) })),
  });
}
