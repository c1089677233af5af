import { BoundedLru } from '../../shared/bounded-lru.ts';

/** An answer kept with the version of the data it was computed from. */
interface Kept {
  version: number;
  /** The serialized answer; pending while it is computed, so that concurrent askers share one computation. */
  body: Promise<Buffer>;
}

/** How much the kept answers of one process may hold: about 90 answers of 1,000 audiences. */
export const KEPT_ANSWERS_BYTES = 32 * 1024 * 1024;
export const KEPT_ANSWERS_COUNT = 1000;

/**
 * Serialized answers kept in this process, each under a key (tenant, page, period) with the version
 * of the data it was computed from, bounded in count and bytes, least recently used out first. An
 * answer is served only for the version it was computed at, and the version moves with every
 * committed change to the data (migration 0029): a kept answer is never stale. Concurrent askers of
 * the same key and version share one computation; one that fails is not kept.
 */
export class KeptAnswers {
  private readonly kept: BoundedLru<Kept>;

  constructor(
    private readonly maxBytes = KEPT_ANSWERS_BYTES,
    maxCount = KEPT_ANSWERS_COUNT,
  ) {
    this.kept = new BoundedLru(maxCount, maxBytes);
  }

  /**
   * The answer kept for `key` at `version`, or the one `compute` makes, kept. The version must be
   * read before `compute` reads the data: the answer is then at least as new as its version says.
   */
  answer(key: string, version: number, compute: () => Promise<Buffer>): Promise<Buffer> {
    const found = this.kept.get(key);
    if (found?.version === version) return found.body;
    const entry: Kept = { version, body: compute() };
    // Pending, it counts no bytes; it is kept again with its size once computed.
    this.kept.set(key, entry, 0);
    entry.body.then(
      (body) => this.sized(key, entry, body.length),
      () => this.kept.delete(key, entry),
    );
    return entry.body;
  }

  /** How many answers and bytes are kept (tests check the bounds). */
  get size(): { count: number; bytes: number } {
    return this.kept.size;
  }

  private sized(key: string, entry: Kept, bytes: number): void {
    if (this.kept.peek(key) !== entry) return;
    if (bytes > this.maxBytes) this.kept.delete(key, entry);
    else this.kept.set(key, entry, bytes);
  }
}
