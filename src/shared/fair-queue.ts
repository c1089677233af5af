/** Refused at once: the key already has as much work waiting as it may. */
export class QueueFull extends Error {}

/** Work that was still waiting when the queue was closed. */
export class QueueClosed extends Error {}

interface Waiting {
  start(): void;
  reject(error: Error): void;
}

/**
 * Runs asynchronous work `slots` pieces at a time, in one line per key (a tenant) where the lines
 * take turns: a free slot goes to the line served longest ago. However much one key has waiting,
 * another key's next piece starts once a slot is free and each line ahead of it has had one turn.
 * Each line holds at most `waitingPerKey` pieces waiting; more is refused with QueueFull.
 */
export class FairQueue {
  /** Lines with work waiting, in turn order (a Map keeps insertion order). */
  private readonly lines = new Map<string, Waiting[]>();
  private running = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly slots: number,
    private readonly waitingPerKey: number,
  ) {}

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new QueueClosed('The queue is closed'));
    const line = this.lines.get(key) ?? [];
    if (line.length >= this.waitingPerKey) {
      return Promise.reject(new QueueFull(`${line.length} pieces of work of ${key} are already waiting`));
    }
    return new Promise<T>((resolve, reject) => {
      line.push({
        start: () => {
          this.running++;
          Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => {
              this.running--;
              this.startNext();
            });
        },
        reject,
      });
      // A line already waiting keeps its place in the turn order; a new one joins at the back.
      this.lines.set(key, line);
      this.startNext();
    });
  }

  /** Resolves once no work runs or waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.lines.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new work, rejects the waiting with QueueClosed, and resolves once the running work ends. */
  close(): Promise<void> {
    this.closed = true;
    const waiting = [...this.lines.values()].flat();
    this.lines.clear();
    for (const piece of waiting) piece.reject(new QueueClosed('The queue was closed before its turn came'));
    this.startNext();
    return this.idle();
  }

  private startNext(): void {
    while (this.running < this.slots) {
      const first = this.lines.entries().next();
      if (first.done) break;
      const [key, line] = first.value;
      const piece = line.shift() as Waiting;
      this.lines.delete(key);
      if (line.length > 0) this.lines.set(key, line);
      piece.start();
    }
    if (this.running === 0 && this.lines.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
