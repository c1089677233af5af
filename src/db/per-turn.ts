/**
 * Reads shared by every request of one turn of the event loop (docs/performance.md, "Change checks
 * once per turn"): the first request of a turn reads, the others of that turn take its answer, and
 * the next turn reads again.
 *
 * Why a request still sees every change committed before it was sent: libuv polls for what the
 * sockets received, then runs the callbacks of what it found, so every request handled in a turn
 * was received, hence sent, before the turn's poll returned, and the shared read is made after
 * that, by the first of them. A change committed before any of them was sent is seen. The values
 * are forgotten when the turn ends, by an immediate (it runs once the poll's callbacks are done,
 * before the loop polls again), and whenever this process may have committed a change itself
 * (`ownWrites`), so that a write answered in a turn is seen by whatever its caller does next.
 *
 * What the argument needs of readers: that they read as a request is received (a hook, a handler
 * before its first wait). A value first read in an immediate or a timer would be kept into the
 * next turn's poll; a check made after a wait for the database, which may end there, reads afresh
 * rather than through here (ChangeWatch.latest). And one limit of libuv's: a poll that returns
 * 1,024 ready connections (its batch) is followed by another in the same turn, whose requests may
 * have been sent after the turn's read; below that many connections ready at once it never happens.
 */
export class PerTurn<K, V> {
  private readonly values = new Map<K, V>();
  private mark: number | undefined;
  private ending = false;

  /**
   * @param ownWrites the engine's mark of this process's own commits (OpenedDatabase.ownWrites):
   *   it moves when this process may have committed, and is undefined while it holds changes not
   *   yet committed that its own reads would see, when nothing read is kept.
   * @param bound most keys kept in one turn; a key past it is read by each request.
   */
  constructor(
    private readonly read: (key: K) => V,
    private readonly ownWrites: () => number | undefined,
    private readonly bound = 1024,
  ) {}

  get(key: K): V {
    const mark = this.ownWrites();
    if (mark === undefined) return this.read(key);
    if (mark !== this.mark) {
      this.values.clear();
      this.mark = mark;
    }
    const kept = this.values.get(key);
    if (kept !== undefined) return kept;
    const value = this.read(key);
    if (this.values.size < this.bound) {
      this.values.set(key, value);
      this.endWithTurn();
    }
    return value;
  }

  private endWithTurn(): void {
    if (this.ending) return;
    this.ending = true;
    setImmediate(() => {
      this.ending = false;
      this.values.clear();
    });
  }
}

/** A read asked for and not yet begun, and how to settle what its askers wait for. */
interface Asked<V> {
  read: () => Promise<V>;
  answer: Promise<V>;
  settle: (answer: Promise<V>) => void;
}

/**
 * Reads shared by the requests that ask for the same key before the read begins: the first to ask
 * in a turn of the event loop names the read, every request that asks for that key until the turn's
 * poll callbacks are done takes its answer, and the read begins then (an immediate), once for all
 * of them. A request asking later waits for the next turn's read.
 *
 * Why every request sees every change committed before it was sent: the read begins after each
 * request it answers asked for it, hence after each was received. Unlike PerTurn this holds
 * wherever a request asks from, after any wait (a handler behind a hook that read the database,
 * which on SQLite may end in an immediate, after a group commit), and needs no mark of this
 * process's own writes: a write answered before a request was sent committed before that request
 * was received. What it costs: each asker waits for the end of the turn's poll callbacks.
 */
export class NextReads<K, V> {
  private asked = new Map<K, Asked<V>>();

  /** @param bound most keys asked for in one turn; a key past it is read by each request. */
  constructor(private readonly bound = 1024) {}

  /** The answer of the read of `key` that begins next, which is `read`, the first asker's. */
  get(key: K, read: () => Promise<V>): Promise<V> {
    const waiting = this.asked.get(key);
    if (waiting) return waiting.answer;
    if (this.asked.size >= this.bound) return read();
    if (this.asked.size === 0) setImmediate(this.readAsked);
    let settle: Asked<V>['settle'] = () => {};
    const answer = new Promise<V>((resolve) => {
      settle = resolve;
    });
    this.asked.set(key, { read, answer, settle });
    return answer;
  }

  /** Begins the reads asked for: a request that asks from here on waits for the next ones. */
  private readonly readAsked = (): void => {
    const asked = this.asked;
    this.asked = new Map();
    for (const { read, settle } of asked.values()) {
      try {
        settle(read());
      } catch (error) {
        settle(Promise.reject(error));
      }
    }
  };
}
