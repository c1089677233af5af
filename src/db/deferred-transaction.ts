import {
  type CompiledQuery,
  type ControlledTransaction,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SelectQueryNode,
  sql,
} from 'kysely';
import type { StatementDialect } from './engine.ts';

type Run = (query: CompiledQuery) => Promise<QueryResult<unknown>>;

/** A statement that only reads: a SELECT that locks no rows (FOR UPDATE and the like are end modifiers). */
function onlyReads(query: CompiledQuery): boolean {
  return SelectQueryNode.is(query.query) && !query.query.endModifiers?.length;
}

/** Kysely's driver for a deferred transaction: every statement goes where `run` sends it. */
class DeferringDriver implements Driver {
  constructor(private readonly run: Run) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return {
      executeQuery: this.run as DatabaseConnection['executeQuery'],
      streamQuery: () => {
        throw new Error('streaming is not offered in a deferred transaction');
      },
    };
  }

  // A transaction inside this one is a savepoint, made by TenantDb.transaction with SQL of its own.
  async beginTransaction(): Promise<void> {
    throw new Error('a deferred transaction is already one: nest with savepoints');
  }

  async commitTransaction(): Promise<void> {
    throw new Error('a deferred transaction ends with its commit()');
  }

  async rollbackTransaction(): Promise<void> {
    throw new Error('a deferred transaction ends with its rollback()');
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}

/**
 * A transaction that begins with its first statement that may write (anything but a plain
 * SELECT), so that whatever comes before (reads, checks, a call to another service) holds no
 * transaction open; from then on every statement of `db` runs in it, reads too, until `commit` or
 * `rollback`. A request's writes and its idempotency key's answer commit together in one of these
 * (http/idempotency.ts) without holding SQLite's only writer, or a PostgreSQL connection, while the
 * handler is still checking its input.
 *
 * Code written for statements that commit on their own runs in it unchanged: a write outside a
 * nested transaction that fails is undone alone, as it would be on its own, and the transaction
 * goes on (on PostgreSQL under a savepoint of its own, since a failed statement aborts the whole
 * transaction there). So an insert that fails on a unique key can still be followed by the read
 * that names the holder.
 */
export class DeferredTransaction {
  /** Statements built on this run in the transaction once it has begun. */
  readonly db: Kysely<unknown>;
  private transaction: Promise<ControlledTransaction<unknown>> | undefined;
  /** The last write made to fail alone: the next waits for it, so their savepoints do not interleave. */
  private lastAlone: Promise<unknown> = Promise.resolve();
  private ended = false;

  /** `nested` tells whether a transaction nested in this one (a savepoint) is open now. */
  constructor(
    private readonly base: Kysely<unknown>,
    private readonly dialect: StatementDialect,
    private readonly nested: () => boolean,
  ) {
    this.db = new Kysely({ dialect: dialect.kyselyDialect(new DeferringDriver((query) => this.run(query))) });
  }

  /** Whether a statement has begun the transaction. */
  get begun(): boolean {
    return this.transaction !== undefined;
  }

  /** Commits what the transaction wrote; nothing to do when it never began. */
  async commit(): Promise<void> {
    const transaction = await this.end();
    if (!transaction) return;
    try {
      await transaction.commit().execute();
    } catch (error) {
      // Kysely keeps the connection after a failed commit; the rollback gives it back.
      await transaction
        .rollback()
        .execute()
        .catch(() => {});
      throw error;
    }
  }

  async rollback(): Promise<void> {
    // A transaction that failed to begin has nothing to roll back.
    const transaction = await this.end().catch(() => undefined);
    if (transaction && !transaction.isCommitted && !transaction.isRolledBack) {
      await transaction.rollback().execute();
    }
  }

  private run(query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (this.ended) return Promise.reject(new Error('the deferred transaction has ended'));
    const reads = onlyReads(query);
    if (!this.transaction && reads) return this.base.executeQuery(query);
    this.transaction ??= this.base.startTransaction().execute();
    if (reads || !this.dialect.failedStatementAbortsTransaction || this.nested()) {
      return this.transaction.then((transaction) => transaction.executeQuery(query));
    }
    const alone = this.lastAlone.then(() => this.runAlone(query));
    this.lastAlone = alone.catch(() => {});
    return alone;
  }

  private async runAlone(query: CompiledQuery): Promise<QueryResult<unknown>> {
    const transaction = await (this.transaction as Promise<ControlledTransaction<unknown>>);
    await sql`SAVEPOINT statement`.execute(transaction);
    try {
      return await transaction.executeQuery(query);
    } catch (error) {
      await sql`ROLLBACK TO SAVEPOINT statement`.execute(transaction);
      throw error;
    } finally {
      await sql`RELEASE SAVEPOINT statement`.execute(transaction);
    }
  }

  private end(): Promise<ControlledTransaction<unknown> | undefined> {
    this.ended = true;
    return this.transaction ?? Promise.resolve(undefined);
  }
}
