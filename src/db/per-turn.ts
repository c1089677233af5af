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
