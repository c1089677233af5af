import { BoundedLru } from '../../shared/bounded-lru.ts';

/** An answer kept with the version of the data it was computed from. */
interface Kept<T> {
  version: number;
  /** The answer; pending while it is computed, so that concurrent askers share one computation. */
  body: Promise<T>;
}

/** The size of a serialized answer. */
export const byteLength = (body: Buffer) => body.length;

/** How much the kept answers of one process may hold: about 90 answers of 1,000 audiences. */
export const KEPT_ANSWERS_BYTES = 32 * 1024 * 1024;
export const KEPT_ANSWERS_COUNT = 1000;

/**
 * Answers kept in this process, each under a key (tenant, page, period) with the version of the data
 * it was computed from, bounded in count and bytes (`sizeOf` tells an answer's), least recently used
 * out first. An answer is served only for the version it was computed at, and the version moves with
 * every committed change to the data it is made from (the serialized answers of fixed periods: the
 * page's version, migration 0029; the sums of closed hours: the tenant's closed hours, 0036), so a
 * kept answer is never stale. Concurrent askers of the same key and version share one computation;
 * one that fails is not kept.
 */
export class KeptAnswers<T> {
  private readonly kept: BoundedLru<Kept<T>>;

  constructor(
    private readonly sizeOf: (answer: T) => number,
    private readonly maxBytes = KEPT_ANSWERS_BYTES,
    maxCount = KEPT_ANSWERS_COUNT,
  ) {
    this.kept = new BoundedLru(maxCount, maxBytes);
  }

  /**
   * The answer kept for `key` at `version`, or the one `compute` makes, kept. The version must be
   * read before `compute` reads the data: the answer is then at least as new as its version says.
   */
  answer(key: string, version: number, compute: () => Promise<T>): Promise<T> {
    const found = this.kept.get(key);
    if (found?.version === version) return found.body;
    const entry: Kept<T> = { version, body: compute() };
    // Pending, it counts no bytes; it is kept again with its size once computed.
    this.kept.set(key, entry, 0);
    entry.body.then(
      (body) => this.sized(key, entry, this.sizeOf(body)),
      () => this.kept.delete(key, entry),
    );
    return entry.body;
  }

  /** How many answers and bytes are kept (tests check the bounds). */
  get size(): { count: number; bytes: number } {
    return this.kept.size;
  }

  private sized(key: string, entry: Kept<T>, bytes: number): void {
    if (this.kept.peek(key) !== entry) return;
    if (bytes > this.maxBytes) this.kept.delete(key, entry);
    else this.kept.set(key, entry, bytes);
  }
}
