/** An answer kept with the version of the data it was computed from. */
interface Kept {
  version: number;
  /** The serialized answer; pending while it is computed, so that concurrent askers share one computation. */
  body: Promise<Buffer>;
  /** Its size once computed; 0 while pending. */
  bytes: number;
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
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = KEPT_ANSWERS_BYTES,
    private readonly maxCount = KEPT_ANSWERS_COUNT,
  ) {}

  /**
   * The answer kept for `key` at `version`, or the one `compute` makes, kept. The version must be
   * read before `compute` reads the data: the answer is then at least as new as its version says.
   */
  answer(key: string, version: number, compute: () => Promise<Buffer>): Promise<Buffer> {
    const found = this.kept.get(key);
    if (found?.version === version) {
      // Most recently used: to the end of the map's order.
      this.kept.delete(key);
      this.kept.set(key, found);
      return found.body;
    }
    if (found) this.drop(key, found);
    const entry: Kept = { version, body: compute(), bytes: 0 };
    this.kept.set(key, entry);
    entry.body.then(
      (body) => this.sized(key, entry, body.length),
      () => this.drop(key, entry),
    );
    this.evict();
    return entry.body;
  }

  /** How many answers and bytes are kept (tests check the bounds). */
  get size(): { count: number; bytes: number } {
    return { count: this.kept.size, bytes: this.bytes };
  }

  private sized(key: string, entry: Kept, bytes: number): void {
    if (this.kept.get(key) !== entry) return;
    if (bytes > this.maxBytes) {
      this.drop(key, entry);
      return;
    }
    entry.bytes = bytes;
    this.bytes += bytes;
    this.evict();
  }

  private drop(key: string, entry: Kept): void {
    if (this.kept.get(key) !== entry) return;
    this.kept.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Drops the least recently used answers until both bounds hold. */
  private evict(): void {
    for (const [key, entry] of this.kept) {
      if (this.kept.size <= this.maxCount && this.bytes <= this.maxBytes) return;
      this.drop(key, entry);
    }
  }
}
