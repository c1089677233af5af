import type { Kysely, KyselyPlugin } from 'kysely';
import { BoundedLru } from '../shared/bounded-lru.ts';
import type {
  ChangeWatch,
  EngineName,
  ErrorClassifier,
  Listening,
  Locks,
  OpenedDatabase,
  PoolUse,
  SearchDialect,
  WatchedTable,
} from './engine.ts';
import { PerTurn } from './per-turn.ts';
import { openPostgres } from './postgres/open.ts';
import { openSqlite } from './sqlite/open.ts';
import { type NoTables, TenantDb } from './tenant-db.ts';

/**
 * Tables as an acrossTenants handle whose caller has not said which it uses sees them: none, so
 * that each caller names its tables (a store's own, e.g. Kysely<JobsTables>) and is typed on them.
 */
export type NoTablesAcross = Record<never, never>;

/**
 * A transaction begun on acrossTenants(), typed like acrossTenants() on the tables its caller names:
 * each service a transaction spans takes it typed on its own tables.
 */
export function acrossTenantsIn<Tables = NoTablesAcross>(transaction: Kysely<unknown>): Kysely<Tables> {
  return transaction as Kysely<Tables>;
}

export type { ChangeWatch, PoolUse } from './engine.ts';

/** Tenant handles kept by a Database: more tenants than one node serves at once, a few hundred kilobytes. */
const TENANT_HANDLES = 1024;

export { sqliteFile } from './sqlite/open.ts';

/**
 * The database, through two handles: `forTenant(id)`, whose every statement is limited to one
 * tenant's rows (what requests and jobs use), and `acrossTenants`, for the few kinds of work that
 * belong to no one tenant (migrations, API keys and tenants, job claims, purges and pruning), each
 * of which scopes its changes by the rows' own tenant_id. What differs between its engines is
 * reached through narrow interfaces (db/engine.ts): `search`, `errors`, `locks`.
 */
export class Database {
  /** The handles of the tenants seen lately: one is made per request otherwise (see forTenant). */
  private readonly tenantHandles = new BoundedLru<TenantDb<unknown>>(TENANT_HANDLES);

  constructor(private readonly opened: OpenedDatabase<unknown>) {}

  /**
   * The handle whose statements no tenant limits, typed on the tables its caller names (in a call's
   * argument, those of the parameter it is passed to): with none named it reaches no table.
   */
  acrossTenants<Tables = NoTablesAcross>(): Kysely<Tables> {
    return this.opened.db as Kysely<Tables>;
  }

  /** Which database this is: for the few things that are told apart outside db/ (tests, benchmarks). */
  get engine(): EngineName {
    return this.opened.engine.name;
  }

  get search(): SearchDialect {
    return this.opened.engine.search;
  }

  get errors(): ErrorClassifier {
    return this.opened.engine.errors;
  }

  get locks(): Locks {
    return this.opened.engine.locks;
  }

  /**
   * The tenant's handle. Services pass it along without naming tables (TenantDb<NoTables> starts
   * no statement); a store takes it as TenantDb<ItsTables>. Tests may name the tables they read.
   */
  forTenant<Tables = NoTables>(tenantId: string): TenantDb<Tables> {
    // A handle holds nothing but its tenant and the connection (a transaction makes a handle of its
    // own), so one serves every request of its tenant: making it (a Kysely with the tenant's
    // plugin) was a few microseconds and its garbage per request. At most TENANT_HANDLES are kept,
    // the first made going first: a use does not move a handle (peek), for moving it would cost
    // more on every request of interleaved tenants than remaking a handle now and then.
    let handle = this.tenantHandles.peek(tenantId);
    if (!handle) {
      const { db, engine, readAtOnce } = this.opened;
      handle = TenantDb.scoped(tenantId, db, engine, readAtOnce);
      this.tenantHandles.set(tenantId, handle);
    }
    return handle as TenantDb<Tables>;
  }

  /**
   * The same database with a Kysely plugin on every statement (tests count queries with one): no
   * compiled read runs past Kysely there (readAtOnce), so the plugin sees each.
   */
  withPlugin(plugin: KyselyPlugin): Database {
    return new Database({ ...this.opened, db: this.opened.db.withPlugin(plugin), readAtOnce: undefined });
  }

  /**
   * Folds up to `limit` changes appended beside the tenants' row counts into the counts (see
   * RowCounts); answers how many. A count reads the same before and after.
   */
  foldRowCounts(limit: number): Promise<number> {
    return this.opened.engine.rowCounts.fold(this.opened.db as Kysely<unknown>, limit);
  }

  /** Whether row counts have changes appended beside them to fold (RowCounts.appended). */
  get appendsRowCountChanges(): boolean {
    return this.opened.engine.rowCounts.appended;
  }

  /** The connection pool's use now, on PostgreSQL; SQLite has one connection and no pool. */
  poolUse(): PoolUse | undefined {
    return this.opened.poolUse?.();
  }

  /**
   * Calls `onNotice` soon after a transaction that notified `channel` (TenantDb.notify) commits, in
   * any process, and whenever notices may have been missed. SQLite has no notifications: there it
   * is never called, and listeners poll.
   */
  listen(channel: string, onNotice: () => void): Listening {
    return this.opened.listen?.(channel, onNotice) ?? { close: async () => {} };
  }

  /**
   * Tells whether `table` may have changed anywhere since last asked (see ChangeWatch): what a
   * cache of its rows checks on every request. Closed by its caller.
   */
  watchChanges(table: WatchedTable): ChangeWatch {
    return this.opened.watch(table);
  }

  /**
   * `read` once per turn of the event loop and key, its answer shared by every request of the turn
   * (db/per-turn.ts): for a small read that every request makes, such as a tenant's serving
   * generation. A change committed before a request was sent is still seen by it.
   */
  perTurn<K, V>(read: (key: K) => V): PerTurn<K, V> {
    return new PerTurn(read, () => this.opened.ownWrites());
  }

  /** Whether `error` means the database is away (see ErrorClassifier.isUnavailable), not that the statement is wrong. */
  isUnavailable(error: unknown): boolean {
    return this.errors.isUnavailable(error);
  }

  close(): Promise<void> {
    return this.opened.close();
  }
}

/** How long a wait on the database may last by default (TAILOR_DB_TIMEOUT_MS). */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;

/** PostgreSQL connections per process by default (TAILOR_DB_POOL_SIZE). */
export const DEFAULT_POOL_SIZE = 10;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL connections for statements: TAILOR_DB_POOL_SIZE. SQLite has one connection. */
  poolSize?: number;
  /**
   * How long any wait on the database may last (for a connection, a lock, a statement's answer)
   * before it fails as the database being away: TAILOR_DB_TIMEOUT_MS.
   */
  databaseTimeoutMs?: number;
  /**
   * Lets statements run as long as they need: a migration that rebuilds an index over a million
   * rows, a bulk load. Waiting for a connection still gives up after `databaseTimeoutMs`.
   */
  unboundedStatements?: boolean;
}

export function openDatabase(options: DatabaseOptions): Database {
  const timeoutMs = options.databaseTimeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  return new Database(
    options.databaseUrl
      ? openPostgres(
          options.databaseUrl,
          options.poolSize ?? DEFAULT_POOL_SIZE,
          timeoutMs,
          !options.unboundedStatements,
        )
      : openSqlite(options.dataDir, timeoutMs),
  );
}
