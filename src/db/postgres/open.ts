import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import pg from 'pg';
import type { Engine, OpenedDatabase } from '../engine.ts';
import { postgresChangeWatch } from './changes.ts';
import { withStatementDeadline } from './deadline.ts';
import { postgresErrors } from './errors.ts';
import { PostgresListeners } from './listener.ts';
import { postgresLocks, postgresNotifier } from './locks.ts';
import { postgresRowCounts } from './row-counts.ts';
import { postgresSearch } from './search.ts';

export const postgresEngine: Engine = {
  name: 'postgres',
  search: postgresSearch,
  errors: postgresErrors,
  locks: postgresLocks,
  notifier: postgresNotifier,
  rowCounts: postgresRowCounts,
  statements: {
    failedStatementAbortsTransaction: true,
    kyselyDialect: (driver) => ({
      createDriver: () => driver,
      createAdapter: () => new PostgresAdapter(),
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createIntrospector: (db) => new PostgresIntrospector(db),
    }),
  },
};

// int8 (counts, epoch milliseconds) arrives as a string by default; every value we keep fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/** How much longer than statement_timeout a statement is waited for before its connection is given up. */
const SERVER_ANSWER_GRACE_MS = 250;

/**
 * Keep-alive settings for PostgreSQL's side of each connection (startup options), so that a session
 * whose client vanished in a partition, maybe inside a transaction holding locks, ends within a few
 * timeouts rather than the two hours of the system's default.
 */
function serverKeepalives(timeoutMs: number): string {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  return `-c tcp_keepalives_idle=${seconds} -c tcp_keepalives_interval=${seconds} -c tcp_keepalives_count=3`;
}

export function openPostgres<Tables>(
  connectionString: string,
  poolSize: number,
  timeoutMs: number,
  bounded: boolean,
): OpenedDatabase<Tables> {
  // A database that does not answer within timeoutMs is away: requests fail with 503 rather than
  // wait without end. That holds for a connection (connecting, or waiting for one while all are in
  // use) and, unless statements are unbounded, for every statement: PostgreSQL ends one that runs
  // longer (statement_timeout), and one it never answers gives up here (withStatementDeadline).
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeoutMs,
    options: serverKeepalives(timeoutMs),
    ...(bounded ? { statement_timeout: timeoutMs } : {}),
  });
  // A client that loses its connection must not crash the process: the pool reports an idle one's
  // error and replaces it, but a checked-out client emits its own 'error', with no listener but
  // this one (the statement it was running fails on its own, and the pool then drops the client).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // The server's own answer to a statement past statement_timeout comes first when it can: only a
  // statement nobody answers costs its connection.
  const deadlineMs = timeoutMs + SERVER_ANSWER_GRACE_MS;
  // Unbounded (migrations, bulk loads: no requests) its own writes are not counted, and nothing
  // read is shared across requests.
  const writes = { count: 0 };
  const dialect = new PostgresDialect({
    pool: bounded ? withStatementDeadline(pool, deadlineMs, writes) : pool,
  });
  const db = new Kysely<Tables>({ dialect });
  const listeners = new PostgresListeners(connectionString, timeoutMs);
  const ownWrites = () => (bounded ? writes.count : undefined);
  return {
    db,
    engine: postgresEngine,
    async close() {
      await listeners.close();
      await db.destroy();
    },
    listen: (channel, onNotice) => listeners.listen(channel, onNotice),
    watch: (table) => postgresChangeWatch(listeners, table, ownWrites),
    ownWrites,
    poolUse() {
      const { totalCount, idleCount, waitingCount } = pool;
      return { open: totalCount, idle: idleCount, waiting: waitingCount };
    },
  };
}
