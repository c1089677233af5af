import type { Static, TObject } from 'typebox';

/**
 * One field map per resource: which column holds each field of the API's schema, and how its value
 * reads (a codec) when the column stores it in another form. The map presents rows, turns a create
 * body into insert values and a patch into the changed columns, so that a field is named in one
 * place. Its type is keyed by the schema: a field the map does not cover, or a column the row lacks,
 * fails `tsc` (docs/architecture.md, "Adding a field to a resource").
 */

/** A column's value in the API's form, and back. */
export interface Codec<Stored, Value> {
  present(stored: Stored): Value;
  store(value: Value): Stored;
}

/** Unix epoch milliseconds, shown as the contract's "+ms" string. */
export const timestamp: Codec<number, string> = {
  present: (ms) => `+${ms}`,
  store: (value) => Number(value.slice(1)),
};

/** SQLite's and PostgreSQL's common boolean: an integer 0 or 1. */
export const flag: Codec<number, boolean> = {
  present: (stored) => stored === 1,
  store: (value) => (value ? 1 : 0),
};

/** A value kept as JSON text; `T` is what the column was written from. */
export function json<T>(): Codec<string, T> {
  return { present: (text) => JSON.parse(text) as T, store: (value) => JSON.stringify(value) };
}

/** A codec that leaves null as null. */
export function nullable<Stored, Value>(codec: Codec<Stored, Value>): Codec<Stored | null, Value | null> {
  return {
    present: (stored) => (stored === null ? null : codec.present(stored)),
    store: (value) => (value === null ? null : codec.store(value)),
  };
}

export const nullableTimestamp = nullable(timestamp);

/** The two times nearly every resource keeps, in the columns they are always kept in. */
export const CREATED_AND_UPDATED = {
  createdAt: { column: 'created_at', codec: timestamp },
  updatedAt: { column: 'updated_at', codec: timestamp },
} as const;

type ColumnName<Row> = keyof Row & string;

/** The columns that hold `Value` as the API shows it: named alone in a map. */
type PlainColumn<Row, Value> = {
  [C in ColumnName<Row>]: [Row[C]] extends [Value] ? ([Value] extends [Row[C]] ? C : never) : never;
}[ColumnName<Row>];

/** A column whose value a codec turns into `Value`. */
type CodedColumn<Row, Value> = {
  [C in ColumnName<Row>]: { column: C; codec: Codec<Row[C], Value> };
}[ColumnName<Row>];

/** A field the row does not store but answers (a count, a URL made of columns): shown, never written. */
type Derived<Row, Value> = (row: Row) => Value;

type Field<Row, Value> = PlainColumn<Row, Value> | CodedColumn<Row, Value> | Derived<Row, Value>;

/** Every field of the API's object `Api`, each with its column. */
export type Fields<Row, Api> = { [K in keyof Api]-?: Field<Row, Api[K]> };

type ColumnOf<F> = F extends string ? F : F extends { column: infer C extends string } ? C : never;

/** The fields a request may write: those with a column. */
type WritableKey<M> = { [K in keyof M]: M[K] extends (row: never) => unknown ? never : K }[keyof M];

/** A request body whose every key is a written field of the map, of the API's type or omitted. */
type Written<Api, M, I> = {
  [K in keyof I]: K extends WritableKey<M> & keyof Api ? Api[K] | undefined : never;
};

/** The columns of the fields `I` names; a field `I` may omit is null when omitted. */
type ColumnsFor<Row, M, I> = {
  [K in keyof I & WritableKey<M> as ColumnOf<M[K]>]:
    | Row[ColumnOf<M[K]> & keyof Row]
    | (undefined extends I[K] ? null : never);
};

export interface FieldMap<Row, Api, M> {
  /** The row as the API shows it. */
  present(row: Row): Api;
  /** The insert values of a create body: each field of `schema`, null when the body omits it. */
  columns<S extends TObject, I extends Static<S> & Written<Api, M, I>>(
    schema: S,
    input: I,
  ): ColumnsFor<Row, M, I>;
  /** The changed columns of a patch: the fields it holds, none of those it omits. */
  write<P extends Written<Api, M, P>>(patch: P): Partial<ColumnsFor<Row, M, Required<P>>>;
}

type AnyField = string | { column: string; codec: Codec<unknown, unknown> } | ((row: object) => unknown);

/**
 * The field map of rows `Row` shown as `schema`: `fieldsOf<PersonRow>()(Person, { name: 'name',
 * createdAt: { column: 'created_at', codec: timestamp }, … })`. Curried so that `Row` is named and
 * the map's column names are inferred.
 */
export function fieldsOf<Row extends object>() {
  return <S extends TObject, const M extends Fields<Row, Static<S>>>(
    _schema: S,
    fields: M,
  ): FieldMap<Row, Static<S>, M> => {
    const entries = Object.entries(fields as Record<string, AnyField>);
    const written = new Map(
      entries.flatMap(([name, field]) => (typeof field === 'function' ? [] : [[name, field] as const])),
    );
    // Null is null in every column; a codec reads only values.
    const store = (field: Exclude<AnyField, (row: object) => unknown>, value: unknown) =>
      typeof field === 'string'
        ? [field, value]
        : [field.column, value === null ? null : field.codec.store(value)];
    const columnsOf = (input: Record<string, unknown>, names: Iterable<string>) =>
      Object.fromEntries(
        [...names].flatMap((name) => {
          const field = written.get(name);
          return field ? [store(field, input[name])] : [];
        }),
      );
    return {
      // Every response of a resource goes through here: one object filled in place, no arrays of pairs.
      present: (row) => {
        const stored = row as Record<string, unknown>;
        const shown: Record<string, unknown> = {};
        for (const [name, field] of entries) {
          if (typeof field === 'function') shown[name] = field(row);
          else if (typeof field === 'string') shown[name] = stored[field];
          else shown[name] = field.codec.present(stored[field.column]);
        }
        return shown as Static<S>;
      },
      columns: (schema, input) => {
        const given = input as Record<string, unknown>;
        const filled = Object.fromEntries(
          Object.keys(schema.properties).map((name) => [name, given[name] ?? null]),
        );
        return columnsOf(filled, Object.keys(filled)) as never;
      },
      write: (patch) => {
        const given = patch as Record<string, unknown>;
        return columnsOf(
          given,
          Object.keys(given).filter((name) => given[name] !== undefined),
        ) as never;
      },
    };
  };
}
