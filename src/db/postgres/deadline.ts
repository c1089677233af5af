import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { compiledStatementName } from '../compiled.ts';

/**
 * A statement PostgreSQL did not answer in time. Its code is a network one, so that it reads as the
 * database being away (ErrorClassifier.isUnavailable: 503 `unavailable`), never as a bug.
 */
class StatementDeadlineError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(timeoutMs: number) {
    super(`The database did not answer within ${timeoutMs} ms`);
  }
}

/**
 * A pooled connection whose statements give up after `timeoutMs`. PostgreSQL's own
 * statement_timeout ends a statement that runs too long, but only a database that answers can say
 * so: across a silent partition (connections open, nothing answers) nothing ever comes back. Then
 * the connection is broken for good: its later statements fail at once, and it is closed on release
 * rather than lent again, so the pool connects afresh once the database answers again.
 */
class DeadlineClient implements PostgresPoolClient {
  private broken: StatementDeadlineError | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly timeoutMs: number,
    private readonly writes: OwnWrites,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely streams through a cursor only when the dialect is given one, which ours never is.
    if (typeof statement !== 'string') throw new Error('Streaming statements are not supported');
    return this.run<R>(statement, parameters);
  }

  private async run<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (this.broken) throw this.broken;
    // A compiled statement is prepared once per connection, by its name, and then only bound.
    const name = compiledStatementName(sql);
    const values = [...parameters];
    const answer = name ? this.client.query({ name, text: sql, values }) : this.client.query(sql, values);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        this.broken = new StatementDeadlineError(this.timeoutMs);
        reject(this.broken);
      }, this.timeoutMs);
    });
    // Past the deadline the statement fails when its connection is closed; nobody waits for it then.
    answer.catch(() => {});
    try {
      return (await Promise.race([answer, deadline])) as PostgresQueryResult<R>;
    } finally {
      clearTimeout(timer);
      if (!READ.test(sql)) this.writes.count++;
    }
  }

  release(): void {
    this.client.release(this.broken);
  }
}

/**
 * Statements other than a plain read that this process's connections have had answered (a commit,
 * or a write that commits on its own, among them): the mark of its own commits that reads shared
 * by a turn's requests are forgotten at (OpenedDatabase.ownWrites).
 */
export interface OwnWrites {
  count: number;
}

/** A statement that changes nothing: Kysely's reads, compiled or not, start so. */
const READ = /^\s*select\b/i;

/** `pool` as Kysely uses it, with a deadline of `timeoutMs` on every statement, counting `writes`. */
export function withStatementDeadline(pool: pg.Pool, timeoutMs: number, writes: OwnWrites): PostgresPool {
  return {
    connect: async () => new DeadlineClient(await pool.connect(), timeoutMs, writes),
    end: () => pool.end(),
  };
}
