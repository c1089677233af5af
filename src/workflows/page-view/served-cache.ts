import { BoundedLru } from '../../shared/bounded-lru.ts';
import type { ServedRead } from './served-store.ts';

/** The rows of one address as last read, and the tenant's generation they were built at. */
export interface ReadRows {
  tenantId: string;
  generation: number;
  rows: ServedRead[];
}

/** Bodies kept in all: 1,000 pages of 16 KB. Past either bound the least recently read go first. */
const MAX_ADDRESSES = 2_000;
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * The kept rows of the addresses a node serves, as it last read them, per address key and encoding:
 * what a page view reads when its tenant's generation is still the one they were built at, so that
 * a view reads that generation (a row of a few bytes, once per turn of the event loop and tenant:
 * generationsOf in served.ts) rather than the page's body. A view still sees every change committed
 * before it was sent, so a change shows on every node's next request as before. Per node (Serving),
 * bounded by count and bytes.
 */
export class ServedCache {
  private readonly entries = new BoundedLru<ReadRows>(MAX_ADDRESSES, MAX_BYTES);

  get(key: string, gzip: boolean): ReadRows | undefined {
    return this.entries.get(nameOf(key, gzip));
  }

  /** Keeps `rows`, when they were all built at one tenant's generation; else forgets the address. */
  keep(key: string, gzip: boolean, rows: ServedRead[]): void {
    this.forget(key, gzip);
    const [first] = rows;
    if (
      !first ||
      rows.some((row) => row.tenant_id !== first.tenant_id || row.generation !== first.generation)
    ) {
      return;
    }
    const entry = { tenantId: first.tenant_id, generation: first.generation, rows };
    this.entries.set(nameOf(key, gzip), entry, sizeOf(entry));
  }

  /** Forgets what is kept of `key`, in one encoding or, by default, in both. */
  forget(key: string, gzip?: boolean): void {
    for (const encoding of gzip === undefined ? [false, true] : [gzip])
      this.entries.delete(nameOf(key, encoding));
  }
}

function nameOf(key: string, gzip: boolean): string {
  return `${gzip ? 'g' : 'h'} ${key}`;
}

function sizeOf(entry: ReadRows): number {
  return entry.rows.reduce((sum, row) => sum + row.body.length, 0);
}
