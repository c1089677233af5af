import {
  type Compilable,
  type CompiledQuery,
  type DeleteQueryBuilder,
  type DeleteResult,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  type SelectQueryBuilder,
  sql,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import { type BuildHandle, CompiledStatement, type ListLengths } from './compiled.ts';
import { DeferredTransaction } from './deferred-transaction.ts';
import type { Engine, ErrorClassifier, SearchDialect } from './engine.ts';
import { TenantScopePlugin } from './tenant-scope.ts';

/**
 * Tables as a caller that has not said which it uses sees them: none. Services pass a TenantDb
 * along without querying it (any statement it starts is a type error); each store names the tables
 * it owns (`TenantDb<PersonsTables>`), so that it is typed on them and on nothing else, and the
 * services' handle is accepted there as it is.
 */
export type NoTables = never;

/**
 * What a method of TenantDb that starts a statement gives back: `Builder` for a handle that named
 * its tables, nothing (never) for one that did not, which cannot start one anyway. So a service's
 * handle, TenantDb<NoTables>, is accepted where a store asks for TenantDb<ItsTables>.
 */
type Typed<Tables, Builder> = [Tables] extends [never] ? never : Builder;

/** How TenantDb holds its connection: any table, typed by the methods that start a statement. */
type UntypedTables = Record<string, Record<string, unknown>>;

/** Rows per tenant of the tables that keep a counter (kept by triggers, see migration 0010). */
export interface TenantRowCountsTable {
  tenant_id: string;
  name: string;
  n: number;
}

/**
 * The counters' tables: a count is its row plus its changes not yet folded into the row (migration
 * 0028; PostgreSQL appends changes, SQLite's triggers move the row itself).
 */
interface RowCountTables {
  tenant_row_counts: TenantRowCountsTable;
  tenant_row_count_changes: TenantRowCountsTable;
}

/**
 * What a transaction keeps until it ends: what to run once it has committed, the channels it told,
 * how many transactions are open inside it now (savepoints).
 */
interface TransactionState {
  committed: (() => void)[];
  notified: Set<string>;
  depth: number;
}

function newTransactionState(): TransactionState {
  return { committed: [], notified: new Set(), depth: 0 };
}

/** A transaction that its holder ends (TenantDb.deferredTransaction). */
export interface OpenTransaction<Tables> {
  /** The tenant's handle whose statements run in the transaction. */
  readonly db: TenantDb<Tables>;
  /** Whether a statement has begun it (see DeferredTransaction). */
  readonly begun: boolean;
  /** Commits, then runs what was to run once it had (afterCommit). */
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The tables among `Tables` whose every row belongs to one tenant. */
export type TenantTable<Tables> = {
  [T in keyof Tables]: Tables[T] extends { tenant_id: string } ? T : never;
}[keyof Tables] &
  string;

/** `db` as TenantDb holds it: the tables are typed by TenantDb's own methods. */
function untyped(db: Kysely<unknown>): Kysely<UntypedTables> {
  return db as Kysely<UntypedTables>;
}

export type TenantInsert<Tables, T extends keyof Tables> = Omit<Insertable<Tables[T]>, 'tenant_id'>;

/** OpenedDatabase.readAtOnce: a compiled read's rows now, or undefined for Kysely to run it. */
type ReadAtOnce = (query: CompiledQuery) => unknown[] | undefined;

/** A compiled statement of a tenant's tables (db/compiled.ts): made by `compiled`, run by TenantDb. */
export type TenantStatement<Tables, Params, Row> = CompiledStatement<TenantDb<Tables>, Params, Row>;

/**
 * A hot statement, built once per engine by `build` as any statement of a TenantDb (the tenant's
 * conditions and tenant_id are the handle's) on stand-ins for `Params`, and run with their values
 * by TenantDb.all, first or run. `lists` gives the length of each parameter that is a list.
 */
export function compiled<Tables, Params = Record<never, never>, Row = unknown>(
  build: (db: TenantDb<Tables>, params: Params) => Compilable<Row>,
  ...lists: keyof ListLengths<Params> extends never ? [] : [ListLengths<Params>]
): TenantStatement<Tables, Params, Row> {
  return new CompiledStatement(build, (lists[0] ?? {}) as ListLengths<Params>);
}

/**
 * The only way services reach tenant-owned tables. Every statement it runs is limited to one
 * tenant: inserts set `tenant_id`, and TenantScopePlugin adds the tenant condition for every table
 * a statement reads, changes or joins, subqueries included. A store cannot forget the tenant, and
 * a join cannot reach another tenant's row through an id that happens to collide.
 */
export class TenantDb<Tables = NoTables> {
  private constructor(
    readonly tenantId: string,
    private readonly db: Kysely<UntypedTables>,
    private readonly engine: Engine,
    private readonly transactionState?: TransactionState,
    private readonly readAtOnce?: ReadAtOnce,
  ) {}

  /**
   * `db` limited to the tenant `tenantId`. With `readAtOnce` (OpenedDatabase.readAtOnce), a
   * compiled read runs through it when it can; the handles of transactions never do.
   */
  static scoped<Tables>(
    tenantId: string,
    db: Kysely<unknown>,
    engine: Engine,
    readAtOnce?: ReadAtOnce,
  ): TenantDb<Tables> {
    const scoped = untyped(db).withPlugin(new TenantScopePlugin(tenantId));
    return new TenantDb<Tables>(tenantId, scoped, engine, undefined, readAtOnce);
  }

  /** Substring search expressions of this database (db/engine.ts). */
  get search(): SearchDialect {
    return this.engine.search;
  }

  /** What a failed statement's error says (db/engine.ts). */
  get errors(): ErrorClassifier {
    return this.engine.errors;
  }

  selectFrom<T extends TenantTable<Tables>>(table: T): Typed<Tables, SelectQueryBuilder<Tables, T, object>> {
    return this.db.selectFrom(table) as unknown as Typed<Tables, SelectQueryBuilder<Tables, T, object>>;
  }

  updateTable<T extends TenantTable<Tables>>(
    table: T,
  ): Typed<Tables, UpdateQueryBuilder<Tables, T, T, UpdateResult>> {
    return this.db.updateTable(table) as unknown as Typed<
      Tables,
      UpdateQueryBuilder<Tables, T, T, UpdateResult>
    >;
  }

  deleteFrom<T extends TenantTable<Tables>>(
    table: T,
  ): Typed<Tables, DeleteQueryBuilder<Tables, T, DeleteResult>> {
    return this.db.deleteFrom(table) as unknown as Typed<Tables, DeleteQueryBuilder<Tables, T, DeleteResult>>;
  }

  insertInto<T extends TenantTable<Tables>>(
    table: T,
    rows: TenantInsert<Tables, T> | TenantInsert<Tables, T>[],
  ): Typed<Tables, InsertQueryBuilder<Tables, T, InsertResult>> {
    const owned = (Array.isArray(rows) ? rows : [rows]).map((row) => ({ ...row, tenant_id: this.tenantId }));
    return this.db.insertInto(table).values(owned) as unknown as Typed<
      Tables,
      InsertQueryBuilder<Tables, T, InsertResult>
    >;
  }

  /** The rows a compiled statement answers (a select, or a write with RETURNING). */
  async all<Params, Row>(statement: TenantStatement<Tables, Params, Row>, params: Params): Promise<Row[]> {
    return this.rowsOf(this.compiledQuery(statement, params));
  }

  /** The first row a compiled statement answers, if any. */
  async first<Params, Row>(
    statement: TenantStatement<Tables, Params, Row>,
    params: Params,
  ): Promise<Row | undefined> {
    return (await this.rowsOf(this.compiledQuery(statement, params)))[0];
  }

  /** A compiled query's rows: at once where the engine may read them so (readAtOnce), else through Kysely. */
  private rowsOf<Row>(query: CompiledQuery<Row>): Row[] | Promise<Row[]> {
    const rows = this.readAtOnce?.(query);
    if (rows) return rows as Row[];
    return this.db.executeQuery(query).then((result) => result.rows);
  }

  /** Runs a compiled statement that writes; answers how many rows it changed. */
  async run<Params>(statement: TenantStatement<Tables, Params, unknown>, params: Params): Promise<number> {
    const result = await this.db.executeQuery(this.compiledQuery(statement, params));
    return Number(result.numAffectedRows ?? 0n);
  }

  /** What a compiled statement runs with `params`: its SQL and parameters (tests compare them). */
  compiledQuery<Params, Row>(
    statement: TenantStatement<Tables, Params, Row>,
    params: Params,
  ): CompiledQuery<Row> {
    return statement.query(this.engine, buildHandle as BuildHandle<TenantDb<Tables>>, this.tenantId, params);
  }

  /**
   * How many rows a query started here selects; with `cap`, counting stops past `cap` rows (the
   * answer is then `cap + 1`), so that a count over a huge match stays cheap.
   */
  async countRows<T extends TenantTable<Tables>>(
    query: SelectQueryBuilder<Tables, T, object>,
    cap?: number,
  ): Promise<number> {
    const rows = query
      .select(sql<number>`1`.as('one'))
      .$if(cap !== undefined, (q) => q.limit((cap ?? 0) + 1));
    const result = await this.db
      .selectFrom(rows.as('counted'))
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(result.n);
  }

  /**
   * The tenant's number of rows in a table that keeps a counter (see migrations 0010 and 0028): its
   * row and its changes not yet folded in, read in one statement, so under one snapshot that a
   * fold (db/postgres/row-counts.ts) changes all at once.
   */
  async rowCount(table: string): Promise<number> {
    const counts = this.db as unknown as Kysely<RowCountTables>;
    const sumOf = (from: keyof RowCountTables) =>
      counts
        .selectFrom(from)
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), sql.lit(0)).as('n'))
        .where('name', '=', table);
    const row = await counts
      .selectNoFrom([
        sumOf('tenant_row_counts').as('counted'),
        sumOf('tenant_row_count_changes').as('changed'),
      ])
      .executeTakeFirstOrThrow();
    return Number(row.counted) + Number(row.changed);
  }

  /**
   * How many of the tenant's rows of `table` hold `query` in one of `columns`, as
   * SearchDialect.substringMatch matches, counted in the table's search index alone; with `cap`, counting
   * stops past `cap` matches (the answer is then `cap + 1`).
   */
  countSubstringMatches(
    table: TenantTable<Tables>,
    columns: string[],
    query: string,
    cap?: number,
  ): Promise<number> {
    return this.engine.search.countSubstringMatches(
      this.db as Kysely<unknown>,
      this.tenantId,
      table,
      columns,
      query,
      cap,
    );
  }

  /**
   * Inside a transaction, waits for and holds the tenant's lock named `name` until the transaction
   * ends: a choice that reads what is taken and then takes the next free value (a slug, a number)
   * is made by one transaction at a time.
   */
  async lock(name: string): Promise<void> {
    await this.engine.locks.lockUntilCommit(this.db as Kysely<unknown>, `${this.tenantId}:${name}`);
  }

  /**
   * Runs `work` in one transaction, and again when it lost a race on a unique key (a concurrent
   * transaction inserted the key it chose first: a slug, a number, a session id), up to `attempts`
   * times in all; a run that finds the key taken then takes another, or finds the row made.
   */
  async retryingTransaction<R>(attempts: number, work: (tx: TenantDb<Tables>) => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(work);
      } catch (error) {
        if (!this.errors.isUniqueViolation(error) || attempt >= attempts) throw error;
      }
    }
  }

  /**
   * Runs `work` in one transaction (whose statements the plugin still scopes). Inside another it is
   * a savepoint of that one: when `work` fails, what it wrote is undone and the outer transaction
   * goes on (so a retryingTransaction inside a request's transaction can run again). Transactions
   * nested in one transaction run one after another, never side by side.
   */
  async transaction<R>(work: (tx: TenantDb<Tables>) => Promise<R>): Promise<R> {
    if (this.transactionState) return this.savepoint(this.transactionState, work);
    const state = newTransactionState();
    const result = await this.db
      .transaction()
      .execute((trx) => work(new TenantDb(this.tenantId, trx, this.engine, state)));
    for (const callback of state.committed) callback();
    return result;
  }

  private async savepoint<R>(
    state: TransactionState,
    work: (tx: TenantDb<Tables>) => Promise<R>,
  ): Promise<R> {
    // Counted from before SAVEPOINT to after RELEASE: a deferred transaction puts no statement of
    // a nested one, these included, under a savepoint of its own.
    const name = sql.id(`nested_${++state.depth}`);
    // What the savepoint's work asks for at commit is undone with it: its callbacks are dropped,
    // and a channel it told (whose NOTIFY the rollback discards) may be told again.
    const committed = state.committed.length;
    const notified = new Set(state.notified);
    try {
      await sql`SAVEPOINT ${name}`.execute(this.db);
      try {
        return await work(this);
      } catch (error) {
        await sql`ROLLBACK TO SAVEPOINT ${name}`.execute(this.db);
        state.committed.length = committed;
        state.notified = notified;
        throw error;
      } finally {
        await sql`RELEASE SAVEPOINT ${name}`.execute(this.db);
      }
    } finally {
      state.depth--;
    }
  }

  /**
   * A transaction of the tenant that begins with the first statement of its handle that may write
   * and ends when its holder commits or rolls it back (see DeferredTransaction). Call it outside a
   * transaction.
   */
  deferredTransaction(): OpenTransaction<Tables> {
    if (this.transactionState) throw new Error('a deferred transaction cannot be nested');
    const state = newTransactionState();
    const deferred = new DeferredTransaction(
      this.db.withoutPlugins() as Kysely<unknown>,
      this.engine.statements,
      () => state.depth > 0,
    );
    const db = new TenantDb(
      this.tenantId,
      untyped(deferred.db).withPlugin(new TenantScopePlugin(this.tenantId)),
      this.engine,
      state,
    );
    return {
      db,
      get begun() {
        return deferred.begun;
      },
      async commit() {
        await deferred.commit();
        for (const callback of state.committed) callback();
      },
      rollback: () => deferred.rollback(),
    };
  }

  /**
   * Runs `callback` once the transaction this handle is in has committed (at once outside a
   * transaction), and never if it rolls back: what others are told must already be there for them.
   */
  afterCommit(callback: () => void): void {
    if (this.transactionState) this.transactionState.committed.push(callback);
    else callback();
  }

  /**
   * Tells the listeners of `channel` in every process (Database.listen) once this transaction
   * commits; a transaction tells each channel once.
   */
  async notify(channel: string): Promise<void> {
    if (this.transactionState?.notified.has(channel)) return;
    this.transactionState?.notified.add(channel);
    await this.engine.notifier.notify(this.db as Kysely<unknown>, channel);
  }
}

/** The handle a compiled statement is built on: TenantDb's own scoping, over a compiling-only Kysely. */
const buildHandle: BuildHandle<TenantDb<unknown>> = (tenantStandIn, kysely, engine) =>
  TenantDb.scoped(tenantStandIn, kysely, engine);
