import type { Caller } from '../../http/auth.ts';
import { BoundedLru } from '../../shared/bounded-lru.ts';

/** Whether the keys may have changed anywhere since last asked (db's ChangeWatch). */
export interface KeyChanges {
  /** As of this turn of the event loop: asked as a request is received. */
  version(): number;
  /** As of now: asked after a read, which may end in a later turn. */
  latest(): number;
  /** Where `version` can lag behind a commit (PostgreSQL's notices), resolves once it does not. */
  caughtUp?(): Promise<void>;
}

export interface KeyCacheOptions {
  /** Most keys held; the least recently used goes first. */
  capacity?: number;
  /** How long an entry is trusted at most, should a change ever go unseen. */
  maxAgeMs?: number;
  now?: () => number;
}

/** A few thousand keys: more than the keys in use on one node, a few hundred kilobytes at most. */
const DEFAULT_CAPACITY = 4096;
const DEFAULT_MAX_AGE_MS = 60_000;

interface Entry {
  caller: Caller;
  readAt: number;
}

/**
 * The live keys this process has seen, by their hash (never the key itself), so that a request
 * with a known key reads nothing. Before answering it asks `changes` whether any key changed
 * anywhere (a revoke in another process, on another node) and forgets every key if so: a revoked
 * key is refused on the next request. A key not found is not kept, so guessed keys cost a read
 * each and no memory; a new key is found at once.
 *
 * A read that a change overtakes is not kept: `changes` is asked before the read and after it, and
 * only an answer read while nothing changed is remembered.
 */
export class KeyCache {
  /** Bounded by count alone: its entries are all of one small size. */
  private readonly entries: BoundedLru<Entry>;
  private seen: number | undefined;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly changes: KeyChanges,
    options: KeyCacheOptions = {},
  ) {
    this.entries = new BoundedLru(options.capacity ?? DEFAULT_CAPACITY);
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
  }

  /** Keys held now. */
  get size(): number {
    return this.entries.size.count;
  }

  /**
   * The caller of the key whose hash is `keyHash`: at once from memory (no promise to wait for),
   * or else from `read`; where the changes can lag behind a commit, once they have caught up, so
   * that a key revoked before the request was sent is never taken from memory. `read` is given the
   * hash, so that one function made once serves every request (no closure per request).
   */
  get(
    keyHash: string,
    read: (keyHash: string) => Promise<Caller | undefined>,
  ): Caller | Promise<Caller | undefined> {
    const caughtUp = this.changes.caughtUp?.();
    if (caughtUp) return caughtUp.then(() => this.fromMemoryOrRead(keyHash, read));
    return this.fromMemoryOrRead(keyHash, read);
  }

  private fromMemoryOrRead(
    keyHash: string,
    read: (keyHash: string) => Promise<Caller | undefined>,
  ): Caller | Promise<Caller | undefined> {
    const version = this.current();
    const entry = this.entries.get(keyHash);
    const readAt = this.now();
    if (entry && readAt - entry.readAt < this.maxAgeMs) return entry.caller;
    this.entries.delete(keyHash);
    return this.readAndKeep(keyHash, version, readAt, read);
  }

  private async readAndKeep(
    keyHash: string,
    version: number,
    readAt: number,
    read: (keyHash: string) => Promise<Caller | undefined>,
  ): Promise<Caller | undefined> {
    const caller = await read(keyHash);
    if (caller && this.current(this.changes.latest()) === version)
      this.entries.set(keyHash, { caller, readAt });
    return caller;
  }

  /** The version of the keys now; every key is forgotten when it moved. */
  private current(version = this.changes.version()): number {
    if (version !== this.seen) {
      this.seen = version;
      this.entries.clear();
    }
    return version;
  }
}
