import { type Compilable, type CompiledQuery, type Driver, Kysely } from 'kysely';
import type { Engine, EngineName } from './engine.ts';

/**
 * Compiled statements: a hot statement built once per engine with Kysely (tenant condition
 * included), then run with new parameters, skipping the query tree, the tenant-scope plugin's
 * transformation and the compiler on every call. TenantDb runs them (TenantDb.all, first, run), so
 * they run where its other statements do: alone, in a transaction, in a deferred one.
 *
 * A statement is built on a TenantDb whose tenant and parameters are stand-ins (ParameterSlot);
 * compiling it leaves each stand-in among the compiled parameters, where a run puts the value. The
 * tenant's stand-in is where TenantDb put the tenant (the plugin's conditions, insertInto's
 * tenant_id), so the SQL holds the same tenant conditions as the statement built per call would, and a
 * run fills them with the tenant of the handle it runs on, never with a value the caller gives.
 *
 * The few hot statements made before any tenant is known (a page by its address, an API key by its
 * hash) are AcrossTenantsStatement, made by `compiledAcrossTenants` and run on
 * Database.acrossTenants(): the same templates without a tenant.
 */

/** What stands for a parameter while a statement is built: `index` for an item of a list. */
class ParameterSlot {
  constructor(
    readonly name: string,
    readonly index?: number,
  ) {}
}

/** What stands for the tenant: TenantDb writes it wherever the tenant's id goes. */
const TENANT = new ParameterSlot('tenant');

/** Where each compiled parameter comes from on a run. */
type Source = { tenant: true } | { slot: ParameterSlot } | { constant: unknown };

/** A statement compiled for one engine: its SQL, and where each of its parameters comes from. */
interface Template {
  query: CompiledQuery;
  sources: Source[];
}

/**
 * The lists among a statement's parameters, with their lengths: a list is as many parameters as it
 * has items (`in (?, ?, …)`), so its length is part of the SQL.
 */
export type ListLengths<Params> = {
  [K in keyof Params as Params[K] extends readonly unknown[] ? K : never]: number;
};

/**
 * The values of `columns` in `row`, each of them named: a compiled insert or update writes every
 * column it was built with, where one built per call leaves out those it is given no value for.
 */
export function columnsOf<Row, C extends keyof Row>(row: Row, columns: readonly C[]): Pick<Row, C> {
  return Object.fromEntries(columns.map((column) => [column, row[column]])) as Pick<Row, C>;
}

/**
 * The SQL of every compiled statement, with a name of its own: on PostgreSQL each runs as a named
 * prepared statement (db/postgres/deadline.ts), parsed and planned once per connection. As many as
 * the statements defined in the code, on two engines.
 */
const statementNames = new Map<string, string>();

/** The name of the compiled statement whose SQL is `sql`; undefined for any other SQL. */
export function compiledStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/** Kysely over no connection, for compiling only: one per engine. */
const compilers = new Map<EngineName, Kysely<unknown>>();

const NO_CONNECTION: Driver = {
  init: async () => {},
  acquireConnection: () => Promise.reject(new Error('compiling only: no connection')),
  beginTransaction: async () => {},
  commitTransaction: async () => {},
  rollbackTransaction: async () => {},
  releaseConnection: async () => {},
  destroy: async () => {},
};

function compilerFor(engine: Engine): Kysely<unknown> {
  let compiler = compilers.get(engine.name);
  if (!compiler) {
    compiler = new Kysely({ dialect: engine.statements.kyselyDialect(NO_CONNECTION) });
    compilers.set(engine.name, compiler);
  }
  return compiler;
}

/**
 * What TenantDb gives a statement to build it on: a handle of the tenant `tenantStandIn` over
 * `kysely`, a Kysely of `engine` that only compiles.
 */
export type BuildHandle<Handle> = (tenantStandIn: string, kysely: Kysely<unknown>, engine: Engine) => Handle;

/** Stand-ins for a statement's parameters: one slot per name, a list of slots for each list. */
function slotsFor<Params>(lists: ListLengths<Params>): Params {
  const lengths = lists as Record<string, number>;
  return new Proxy({} as Record<string, unknown>, {
    get: (_, name: string) => {
      const length = lengths[name];
      if (length === undefined) return new ParameterSlot(name);
      return Array.from({ length }, (_, index) => new ParameterSlot(name, index));
    },
  }) as Params;
}

/** Where each parameter of `query`, compiled on stand-ins, comes from; its SQL gets its name. */
function templateOf(query: CompiledQuery): Template {
  const sources = query.parameters.map((parameter): Source => {
    if (parameter === TENANT) return { tenant: true };
    if (parameter instanceof ParameterSlot) return { slot: parameter };
    return { constant: parameter };
  });
  if (!statementNames.has(query.sql)) statementNames.set(query.sql, `tailor_${statementNames.size + 1}`);
  return { query, sources };
}

/** `template` to run with `values` (and the tenant `tenantId`, for a tenant's statement). */
function queryOf<Params, Row>(
  template: Template,
  lists: ListLengths<Params>,
  values: Params,
  tenantId?: string,
): CompiledQuery<Row> {
  const named = values as Record<string, unknown>;
  const lengths = lists as Record<string, number>;
  for (const name in lengths) {
    if ((named[name] as unknown[]).length !== lengths[name]) {
      throw new Error(`compiled statement: list ${name} must have ${lengths[name]} items`);
    }
  }
  const parameters = template.sources.map((source) => {
    if ('tenant' in source) return tenantId;
    if ('constant' in source) return source.constant;
    const { name, index } = source.slot;
    const value = index === undefined ? named[name] : (named[name] as unknown[])[index];
    if (value === undefined) throw new Error(`compiled statement: no value for parameter ${name}`);
    return value;
  });
  return { ...template.query, parameters } as CompiledQuery<Row>;
}

/**
 * A statement built once per engine and run with parameters (`Params`, an object of named values),
 * answering rows of `Row` (a select, or a write with RETURNING) or a count of changed rows. Define
 * it once, at a store's top level, with `compiled` (tenant-db.ts); run it with TenantDb.all, first
 * or run.
 */
export class CompiledStatement<Handle, Params, Row> {
  /** At most one per engine, SQLite and PostgreSQL. */
  private readonly templates = new Map<EngineName, Template>();

  constructor(
    private readonly build: (db: Handle, params: Params) => Compilable<Row>,
    private readonly lists: ListLengths<Params>,
  ) {}

  /**
   * The query to run on `engine` for `tenantId` with `values`; the statement is built the first
   * time on an engine, on the handle `handleOf` makes.
   */
  query(engine: Engine, handleOf: BuildHandle<Handle>, tenantId: string, values: Params): CompiledQuery<Row> {
    let template = this.templates.get(engine.name);
    if (!template) {
      template = this.compile(engine, handleOf);
      this.templates.set(engine.name, template);
    }
    return queryOf(template, this.lists, values, tenantId);
  }

  private compile(engine: Engine, handleOf: BuildHandle<Handle>): Template {
    // The stand-in goes where TenantDb puts its tenant's id, a string; Kysely passes it on untouched.
    const handle = handleOf(TENANT as unknown as string, compilerFor(engine), engine);
    const template = templateOf(this.build(handle, slotsFor(this.lists)).compile());
    // Every statement of a TenantDb names a tenant's table, so its tenant is among its parameters.
    if (!template.sources.some((source) => 'tenant' in source)) {
      throw new Error(`compiled statement without its tenant condition: ${template.query.sql}`);
    }
    return template;
  }
}

/**
 * A compiled statement of the whole database, on Database.acrossTenants(): for the few hot reads
 * made before any tenant is known (a page by its address, an API key by its hash). Built with
 * Kysely on stand-ins the first time it runs on a handle, without the handle's plugins (no
 * tenant-scope plugin is on such a handle), then run with new parameters. acrossTenants() is one
 * handle per database, so it is built once per database; a transaction's handle builds it again,
 * once per transaction. Its SQL gets a name as a tenant's statement does: a named prepared
 * statement on PostgreSQL.
 */
export class AcrossTenantsStatement<Tables, Params, Row> {
  /** One per handle it has run on, forgotten with the handle. */
  private readonly templates = new WeakMap<Kysely<Tables>, Template>();

  constructor(
    private readonly build: (db: Kysely<Tables>, params: Params) => Compilable<Row>,
    private readonly lists: ListLengths<Params>,
  ) {}

  /** The rows it answers on `db` (a select, or a write with RETURNING). */
  async all(db: Kysely<Tables>, params: Params): Promise<Row[]> {
    return (await db.executeQuery(this.query(db, params))).rows;
  }

  /** The first row it answers on `db`, if any. */
  async first(db: Kysely<Tables>, params: Params): Promise<Row | undefined> {
    return (await this.all(db, params))[0];
  }

  /** Runs it on `db` as a write; answers how many rows it changed. */
  async run(db: Kysely<Tables>, params: Params): Promise<number> {
    const result = await db.executeQuery(this.query(db, params));
    return Number(result.numAffectedRows ?? 0n);
  }

  /** What it runs on `db` with `values`: its SQL and parameters (tests compare them). */
  query(db: Kysely<Tables>, values: Params): CompiledQuery<Row> {
    let template = this.templates.get(db);
    if (!template) {
      template = templateOf(this.build(db.withoutPlugins(), slotsFor(this.lists)).compile());
      this.templates.set(db, template);
    }
    return queryOf(template, this.lists, values);
  }
}

/**
 * A hot statement of the whole database (see AcrossTenantsStatement), defined once at a store's top
 * level: `build` writes it on `db` with stand-ins for `Params`; `lists` gives the length of each
 * parameter that is a list. Run it with its all, first or run on the handle the store is given.
 */
export function compiledAcrossTenants<Tables, Params = Record<never, never>, Row = unknown>(
  build: (db: Kysely<Tables>, params: Params) => Compilable<Row>,
  ...lists: keyof ListLengths<Params> extends never ? [] : [ListLengths<Params>]
): AcrossTenantsStatement<Tables, Params, Row> {
  return new AcrossTenantsStatement(build, (lists[0] ?? {}) as ListLengths<Params>);
}
