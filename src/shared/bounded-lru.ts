/**
 * Values by key, bounded in count and in bytes (each value's size given when it is set), the least
 * recently used dropped first once either bound is passed. A Map's insertion order is the order of
 * use: a read or a set moves its key to the end.
 */
export class BoundedLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxCount: number,
    private readonly maxBytes: number,
  ) {}

  /** The most recently used key: read again, it is already last in the order. */
  private last: string | undefined;

  /** The value of `key`, now the most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (key !== this.last) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.last = key;
    }
    return entry.value;
  }

  /** The value of `key`, its place in the order untouched. */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Keeps `value` as the most recently used, then drops the least recently used past the bounds. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.last = key;
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxCount && this.bytes <= this.maxBytes) return;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  /** Forgets `key`; when `value` is given, only while it is still the value kept. */
  delete(key: string, value?: V): void {
    const entry = this.entries.get(key);
    if (!entry || (value !== undefined && entry.value !== value)) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** How many values and bytes are kept. */
  get size(): { count: number; bytes: number } {
    return { count: this.entries.size, bytes: this.bytes };
  }
}
