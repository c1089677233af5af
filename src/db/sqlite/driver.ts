import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult } from 'kysely';
import { isBusy } from './errors.ts';
import { SearchChanges } from './search-changes.ts';

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** Prepared statements kept per connection; more distinct statements than this are prepared again. */
const STATEMENT_CACHE_SIZE = 500;

/** The statements most recently used, prepared once each; least recently used ones go first. */
class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly capacity: number,
  ) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.statements.size >= this.capacity) {
        this.statements.delete(this.statements.keys().next().value as string);
      }
    }
    this.statements.set(sql, statement);
    return statement;
  }
}

/** A lock with one holder at a time; waiters take it in turn. */
class Mutex {
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  /** Lockers not yet holding it: an unlock hands it on a promise's turn later. */
  private waiting = 0;

  /** Whether it is held, or anyone waits for it. */
  get busy(): boolean {
    return this.held !== undefined || this.waiting > 0;
  }

  /** Takes it when nobody holds it or waits for it; answers whether it did. */
  tryLock(): boolean {
    if (this.busy) return false;
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
    return true;
  }

  /** Waits until nobody holds it, without taking it. */
  async free(): Promise<void> {
    while (this.held) await this.held;
  }

  async lock(): Promise<void> {
    this.waiting++;
    while (this.held) await this.held;
    this.waiting--;
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  unlock(): void {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    release?.();
  }
}

/**
 * The write lock of each database file among this process's connections. A group holds SQLite's
 * write lock across a turn of the event loop, and another connection of the same process asking
 * SQLite for it could only be refused until that turn ends; so connections of one process take
 * turns here, asynchronously, before asking SQLite.
 */
const fileWriters = new Map<string, { mutex: Mutex; users: number }>();

function writerOf(file: string): Mutex {
  const entry = fileWriters.get(file) ?? { mutex: new Mutex(), users: 0 };
  entry.users++;
  fileWriters.set(file, entry);
  return entry.mutex;
}

function leaveWriter(file: string): void {
  const entry = fileWriters.get(file);
  if (entry && --entry.users === 0) fileWriters.delete(file);
}

/** Pauses between attempts at the write lock: from 1 ms, doubling to 50 ms, each with up to half again at random. */
function retryDelayMs(attempt: number): number {
  const base = Math.min(50, 2 ** (attempt - 1));
  return base + Math.random() * base * 0.5;
}

/** One transaction on disk that several units of work share, and the moment it is. */
interface Group {
  committed: Promise<void>;
  settle(error?: unknown): void;
}

/**
 * better-sqlite3 behind Kysely, with group commit and a statement cache.
 *
 * With `synchronous = FULL` every commit waits for an fsync, and better-sqlite3 waits on the event
 * loop: one fsync per write caps writes at the disk's fsync rate and stalls every request meanwhile.
 * Here the writes that arrive during one turn of the event loop share one transaction: each unit of
 * work (a Kysely transaction, or a single statement outside one) runs inside the group's open
 * transaction under a savepoint of its own, so a unit that fails is rolled back alone; the group
 * commits at the end of the turn, with one fsync, and only then does each unit's promise settle.
 * Nothing that a unit wrote is answered before it is on disk, and neither is anything read while a
 * group is open (such a read could see those writes). A read with no group open runs at once, and
 * with the connection free too it may run without Kysely at all (readAtOnce).
 *
 * SQLite has one connection here, so units run one at a time (the mutex), as in Kysely's driver;
 * a unit gives the connection up as soon as its own statements are done, not when its group commits.
 *
 * The search indexes take a group's changes at once (SearchChanges): a unit's writes stage them,
 * and they are applied before the group commits and before a statement outside a transaction reads
 * in the group, so that no such read sees an index behind its table. A transaction reads the indexes
 * as the group's last application left them: its own writes to a searched table are not found by a
 * search of its own (nothing searches in a transaction).
 */
export class GroupCommitSqliteDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly writer: Mutex;
  private readonly statements: StatementCache;
  private readonly searchChanges: SearchChanges;
  private group: Group | undefined;
  /** Whether a unit of the open group may have staged search changes that are not applied yet. */
  private searchChangesStaged = false;

  /**
   * @param lockWaitMs How long a unit waits for SQLite's write lock while another process holds it
   *   (TAILOR_DB_TIMEOUT_MS).
   * @param briefLockWaitMs The connection's busy_timeout, which every other statement waits with.
   */
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly lockWaitMs: number,
    private readonly briefLockWaitMs: number,
  ) {
    this.statements = new StatementCache(db, STATEMENT_CACHE_SIZE);
    this.searchChanges = new SearchChanges((sql) => this.statements.get(sql));
    this.writer = writerOf(db.name);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.lock();
    return new Unit(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as Unit).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as Unit).finish();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as Unit).rollBack();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Unit).release();
  }

  async destroy(): Promise<void> {
    await this.mutex.lock();
    try {
      this.commitGroup();
    } finally {
      this.mutex.unlock();
      leaveWriter(this.db.name);
      this.db.close();
    }
  }

  /**
   * The rows of `query`, read synchronously on the connection, when it is a read and nothing else
   * has the connection, waits for it or holds a transaction on it (so no group is open, whose writes
   * it could see before they are on disk, and no unit queued before it is passed); undefined when
   * it must take its turn through Kysely instead. Kysely's connection acquisition, this driver's
   * mutex and their promises cost more than the few microseconds of a read by primary key.
   */
  readAtOnce(query: CompiledQuery): unknown[] | undefined {
    if (this.group || this.mutex.busy || this.db.inTransaction) return undefined;
    const statement = this.statements.get(query.sql);
    if (!statement.readonly || !statement.reader) return undefined;
    // An array binds its items as the positional parameters, as in `run` below.
    return statement.all(query.parameters);
  }

  /** @internal What a unit runs its statements with. */
  statement(sql: string): Statement {
    return this.statements.get(sql);
  }

  /** Runs one of the driver's own statements (transaction control), prepared once like the rest. */
  private run(sql: string): void {
    this.statements.get(sql).run();
  }

  /** @internal Whether a group is open: a read now may see writes that are not on disk yet. */
  get grouping(): boolean {
    return this.group !== undefined;
  }

  /**
   * @internal Starts a unit inside the open group (opening one), under a savepoint of its own; one
   * name serves every unit, since they run one at a time. Answers the group, whose commit the unit
   * awaits once it has given the connection up (a promise in an object: an async function would
   * wait for it). A unit that `writes` may stage search changes.
   */
  async enterGroup(writes: boolean): Promise<Group> {
    if (!this.group) await this.openGroup();
    this.run('SAVEPOINT unit');
    if (writes) this.searchChangesStaged = true;
    return this.group as Group;
  }

  /** @internal Ends a unit: keeps its writes in the group, or undoes them alone. */
  leaveGroup(keep: boolean): void {
    if (!this.db.inTransaction) {
      // SQLite rolled the whole transaction back (an I/O error, say): every unit in it is lost.
      this.failGroup(new Error('the transaction was rolled back by the database'));
      return;
    }
    if (!keep) {
      this.run('ROLLBACK TO unit');
      // The unit may have applied changes staged before it, which are staged again now.
      this.searchChangesStaged = true;
    }
    this.run('RELEASE unit');
  }

  /** @internal Writes the search changes that the group's units staged into the indexes. */
  applySearchChanges(): void {
    if (!this.searchChangesStaged) return;
    this.searchChanges.apply();
    this.searchChangesStaged = false;
  }

  /** @internal Waits for the connection, for a unit that gave it up and is used again. */
  lock(): Promise<void> {
    return this.mutex.lock();
  }

  /** @internal Lets the next unit have the connection. */
  unlock(): void {
    this.mutex.unlock();
  }

  /**
   * Opens a group, taking SQLite's write lock (IMMEDIATE: so that no statement of the group can fail
   * later for want of it). Another process may hold it (the CLI, a worker, an operator's sqlite3):
   * SQLite is asked without waiting (busy_timeout 0), and between attempts the unit gives the
   * connection up, so that reads go on and the event loop never waits for the lock. Past the
   * database timeout, SQLite's SQLITE_BUSY is the answer: the database counts as unavailable.
   */
  private async openGroup(): Promise<void> {
    const deadline = Date.now() + this.lockWaitMs;
    for (let attempt = 1; ; attempt++) {
      // A unit that took the connection while this one waited may have opened a group: join it.
      if (this.group) return;
      if (!this.writer.tryLock()) {
        await this.withoutConnection(() => this.writer.free());
        continue;
      }
      const refusal = this.begin();
      if (refusal === undefined) return this.startGroup();
      this.writer.unlock();
      const waitMs = Math.min(retryDelayMs(attempt), deadline - Date.now());
      if (waitMs <= 0) throw refusal;
      await this.withoutConnection(() => sleep(waitMs));
    }
  }

  /** Begins the group's transaction; answers SQLite's refusal when another process holds the write lock. */
  private begin(): unknown {
    this.setBusyTimeout(0);
    try {
      this.run('BEGIN IMMEDIATE');
      return undefined;
    } catch (error) {
      if (isBusy(error)) return error;
      this.writer.unlock();
      throw error;
    } finally {
      this.setBusyTimeout(this.briefLockWaitMs);
    }
  }

  private setBusyTimeout(ms: number): void {
    // A pragma answers a row: `get`, where `run` would refuse it.
    this.statements.get(`PRAGMA busy_timeout = ${ms}`).get();
  }

  /** Runs `wait` with the connection given up to the units queued for it, and takes it back after. */
  private async withoutConnection(wait: () => Promise<void>): Promise<void> {
    this.mutex.unlock();
    try {
      await wait();
    } finally {
      await this.mutex.lock();
    }
  }

  private startGroup(): void {
    let settle!: (error?: unknown) => void;
    const committed = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Units that do not wait for the outcome themselves (a failed one) must not leave it unhandled.
    committed.catch(() => {});
    this.group = { committed, settle };
    this.searchChangesStaged = false;
    setImmediate(() => void this.commitWhenFree());
  }

  /** Commits at the end of this turn of the event loop, once the unit holding the connection is done. */
  private async commitWhenFree(): Promise<void> {
    await this.mutex.lock();
    try {
      this.commitGroup();
    } finally {
      this.mutex.unlock();
    }
  }

  private commitGroup(): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    try {
      this.applySearchChanges();
      this.run('COMMIT');
      group.settle();
    } catch (error) {
      if (this.db.inTransaction) this.run('ROLLBACK');
      group.settle(error);
    } finally {
      this.writer.unlock();
    }
  }

  private failGroup(error: Error): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    this.writer.unlock();
    group.settle(error);
  }
}

/**
 * One unit of work on the connection, from acquisition to release: either one Kysely transaction or
 * the statements Kysely runs outside one (each its own unit as far as groups go).
 */
class Unit implements DatabaseConnection {
  /** The group this unit is a transaction in, while it is one. */
  private transaction: Group | undefined;
  private released = false;

  constructor(private readonly driver: GroupCommitSqliteDriver) {}

  async begin(): Promise<void> {
    if (this.released) await this.takeBack();
    this.transaction = await this.driver.enterGroup(true);
  }

  async finish(): Promise<void> {
    const { committed } = this.transaction as Group;
    this.transaction = undefined;
    this.driver.leaveGroup(true);
    this.release();
    await committed;
  }

  /** Also called when the commit itself failed, after `finish` had ended the transaction. */
  rollBack(): void {
    if (!this.transaction) return;
    this.transaction = undefined;
    this.driver.leaveGroup(false);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.driver.unlock();
  }

  /**
   * Takes the connection again for a unit that Kysely goes on using after a statement of its own gave
   * it up: a connection held across statements (Kysely's migrator begins a transaction on the one it
   * took the migration lock with).
   */
  private async takeBack(): Promise<void> {
    await this.driver.lock();
    this.released = false;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.released) await this.takeBack();
    const statement = this.driver.statement(query.sql);
    if (this.transaction) return run<R>(statement, query.parameters);
    if (statement.readonly && !this.driver.grouping) return run<R>(statement, query.parameters);
    // A write, or a read that may see the open group's writes: a unit of its own, answered once the
    // group is on disk.
    const { committed } = await this.driver.enterGroup(!statement.readonly);
    let result: QueryResult<R>;
    try {
      if (statement.readonly) this.driver.applySearchChanges();
      result = run<R>(statement, query.parameters);
    } catch (error) {
      this.driver.leaveGroup(false);
      throw error;
    }
    this.driver.leaveGroup(true);
    this.release();
    await committed;
    return result;
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; Kysely needs the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on SQLite here');
  }
}

function run<R>(statement: Statement, parameters: readonly unknown[]): QueryResult<R> {
  // An array binds its items as the positional parameters, as Kysely's own driver passes them.
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
