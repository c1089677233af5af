import {
  type TNull,
  type TObjectOptions,
  type TOptional,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from 'typebox';
import type { IdPrefix } from '../shared/ids.ts';

/**
 * Shapes shared by every resource's schemas. A schema given a `title` is a named shape: the OpenAPI
 * document lists it under components.schemas by that title (src/http/openapi.ts).
 */

export const TIMESTAMP_PATTERN = '^\\+[1-9]\\d{1,14}$';
export const MAX_SAFE = 9007199254740991;

/**
 * A patterned string's description starts with its shape in words, a noun phrase naming an example
 * (shared/rules-in-words.ts says it in refusals and the console beside inputs); `examples` holds it.
 */
const TIMESTAMP_SHAPE = 'A timestamp such as +1763719200000: "+" and Unix epoch milliseconds';

export const Timestamp = Type.String({
  pattern: TIMESTAMP_PATTERN,
  description: TIMESTAMP_SHAPE,
  examples: ['+1763719200000'],
});

export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

export const NullableTimestamp = Nullable(Timestamp);

/**
 * An instant given as input (decisions §2): an RFC 3339 date-time or the "+ms" form, exactly what
 * shared/time.ts `parseInstant` reads: the date-time spelled out to the second (no leap second,
 * which no Date holds), with "T" and an offset.
 */
export const Instant = (description: string) =>
  Type.Union(
    [
      Type.String({
        format: 'date-time',
        pattern: '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:[0-5]\\d(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$',
        description: 'A date and time such as 2026-01-31T09:00:00Z, to the second, with Z or an offset',
        examples: ['2026-01-31T09:00:00Z'],
      }),
      Type.String({ pattern: TIMESTAMP_PATTERN, description: TIMESTAMP_SHAPE, examples: ['+1763719200000'] }),
    ],
    { description },
  );

/**
 * An absolute http(s) URL, the only kind a client may store for a site or a profile: a link to it
 * can never run script (`javascript:`, `data:`), whatever case or leading characters it tries.
 */
export const HttpUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: '^https?://\\S+$',
  description: 'An absolute http(s) URL such as https://acme.com',
  examples: ['https://acme.com'],
});

/** An example of an id of every kind: its prefix, "_" and a ULID (decisions §2). */
const EXAMPLE_ULID = '01jdq4b7e2g5j8k1m3n6p9r2s4';

/**
 * The body of every id: a ULID as src/shared/ids.ts mints it, 26 characters of lowercase Crockford
 * base32 (digits and letters but i, l, o and u).
 */
const ULID_BODY = '[0-9a-hjkmnp-tv-z]{26}';

/**
 * The id of a `prefix` ("person"), held to its form, `meaning` saying what it stands for: "Only the
 * audiences made for this person".
 */
export const IdString = (prefix: IdPrefix, meaning: string) =>
  Type.String({
    pattern: `^${prefix}_${ULID_BODY}$`,
    description: `${/^[aeiou]/.test(prefix) ? 'An' : 'A'} ${prefix} id such as ${prefix}_${EXAMPLE_ULID}. ${meaning}`,
    examples: [`${prefix}_${EXAMPLE_ULID}`],
  });

export const Count = Type.Integer({ minimum: 0, maximum: MAX_SAFE });

export const FieldErrorSchema = Type.Object(
  {
    path: Type.String({ description: 'JSON pointer into the request, e.g. /body/name' }),
    message: Type.String(),
  },
  { title: 'FieldError' },
);

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { title: 'Problem', description: 'RFC 9457 problem details' },
);

export const PagedList = <T extends TSchema>(
  item: T,
  options: { title: string; nextCursorMinLength?: number; nullableTotal?: boolean },
) =>
  Type.Object(
    {
      hasMore: Type.Boolean(),
      items: Type.Array(item),
      nextCursor: Nullable(
        Type.String(options.nextCursorMinLength ? { minLength: options.nextCursorMinLength } : {}),
        {
          description: 'Pass back as `cursor` for the next page; null when hasMore is false',
        },
      ),
      totalCount: options.nullableTotal ? Nullable(Count) : Count,
    },
    { title: options.title },
  );

/** Items in a page of a list when the request names no `limit`. */
export const DEFAULT_PAGE_SIZE = 20;

export const PageQuery = {
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: DEFAULT_PAGE_SIZE,
      description: `How many items to answer, 1 to 100; ${DEFAULT_PAGE_SIZE} when not given`,
    }),
  ),
};

export const SearchQuery = Type.Optional(
  Type.String({ maxLength: 200, description: 'Case-insensitive substring match; empty means no filter' }),
);

/**
 * Every id a path names, declared once: its form and what it names. A path parameter is an id and
 * nothing else (decisions §9): a value of another form, `..` included, names nothing and is a 404
 * before the body is read (src/http/path-parameters.ts).
 */
const PATH_IDS = {
  account_id: IdString('account', 'The account'),
  asset_id: IdString('asset', 'The asset'),
  audience_id: IdString('audience', 'An audience of the page'),
  brand_id: Type.String({
    pattern: '^(?!\\.{1,2}$)[A-Za-z0-9._-]{1,64}$',
    description:
      "A brand id such as acme-retail: 1 to 64 letters, digits, '.', '_' or '-', but not '.' or '..'. The brand, named by the client (the pages' brandId)",
    examples: ['acme-retail'],
  }),
  delivery_id: IdString('delivery', 'A delivery of the webhook subscription'),
  file_id: IdString('file', 'The file'),
  form_submission_id: IdString('form', 'The form submission'),
  page_id: IdString('page', 'The page'),
  page_link_id: IdString('pagelink', 'The page link'),
  person_id: IdString('person', 'The person'),
  person_log_id: IdString('personlog', "An entry of the person's log"),
  subscription_id: IdString('whsub', 'The webhook subscription'),
  tenant_domain_id: IdString('domain', 'The tenant domain'),
  topic_entry_id: IdString('topicentry', 'An entry of the topic'),
  topic_id: IdString('topic', 'The topic'),
  version_id: IdString('version', 'A version of the audience'),
};

/** The path parameters of a route, each an id of PATH_IDS. */
export const IdParams = <K extends keyof typeof PATH_IDS>(...names: K[]) =>
  Type.Object(
    Object.fromEntries(names.map((name) => [name, PATH_IDS[name]])) as { [N in K]: (typeof PATH_IDS)[N] },
  );

/** The body of an action (publish, archive…): optional, so the OpenAPI document marks it not required. */
export const EMPTY_BODY_NAME = 'EmptyBody';
export const EmptyBody = Type.Optional(
  Type.Object(
    {},
    { title: EMPTY_BODY_NAME, additionalProperties: false, description: 'Empty object, or no body' },
  ),
);

/** Every field of `fields` made optional: the shape of a partial update. */
export const optionalAll = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, Type.Optional(schema)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };

/**
 * The body of a create made of a resource's writable fields: those named in `required` as they
 * are, the others optional. Update bodies come from the same fields (`patchOf`).
 */
export const createOf = <F extends TProperties, R extends keyof F>(
  fields: F,
  required: readonly R[],
  options: TObjectOptions,
) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(fields).map(([key, schema]) => [
        key,
        required.includes(key as R) ? schema : Type.Optional(schema),
      ]),
    ) as { [K in keyof F]: K extends R ? F[K] : TOptional<F[K]> },
    { ...options, additionalProperties: false },
  );

/**
 * The body of a partial update of a resource's writable fields: each optional; those named in
 * `nullable` may also be null, which clears them (with that null's options, e.g. what it means).
 */
export const patchOf = <F extends TProperties, N extends keyof F = never>(
  fields: F,
  nullable: { [K in N]: { description?: string } },
  options: TObjectOptions,
) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(fields).map(([key, schema]) => {
        const nullOptions = (nullable as Record<string, { description?: string }>)[key];
        return [key, Type.Optional(nullOptions ? Nullable(schema, nullOptions) : schema)];
      }),
    ) as { [K in keyof F]: TOptional<K extends N ? TUnion<[F[K], TNull]> : F[K]> },
    { ...options, additionalProperties: false },
  );
