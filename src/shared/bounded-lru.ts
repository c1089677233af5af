/**
 * Values by key, bounded in count and in bytes (each value's size given when it is set; a cache
 * bounded by count alone gives none), the least recently used dropped first once either bound is
 * passed. A Map's insertion order is the order of use: a read or a set moves its key to the end.
 */
export class BoundedLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;
  /** The key used last, already at the end of the order. */
  private newest: string | undefined;

  constructor(
    private readonly maxCount: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** The value of `key`, now the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Moving a key (a delete and a set on the Map) costs ten times the read: a key read again
    // while still the newest, as a node's one busy tenant or key is, stays where it is.
    if (key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
    }
    return entry.value;
  }

  /** The value of `key`, its place in the order untouched. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` as the most recently used, then drops the least recently used past the bounds. */
  set(key: string, value: V, bytes = 0): void {
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.newest = key;
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxCount && this.bytes <= this.maxBytes) return;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
      if (oldest === this.newest) this.newest = undefined;
    }
  }

  /** Forgets `key`; when `value` is given, only while it is still the value kept. */
  delete(key: string, value?: V): void {
    const entry = this.entries.get(key);
    if (!entry || (value !== undefined && entry.value !== value)) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    if (key === this.newest) this.newest = undefined;
  }

  /** Forgets every value. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.newest = undefined;
  }

  /** How many values and bytes are kept. */
  get size(): { count: number; bytes: number } {
    return { count: this.entries.size, bytes: this.bytes };
  }
}
