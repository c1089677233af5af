import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** Stored bytes being read: their size, and a stream of them that the reader must consume or destroy. */
export interface StoredBytes {
  /** Undefined when the store does not say. */
  size: number | undefined;
  body: Readable;
}

/**
 * Where file bytes live. Keys are opaque strings chosen by the files service; the store only puts,
 * reads and removes them.
 */
export interface FileStorage {
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes, or undefined when nothing is stored under the key. */
  get(key: string): Promise<Buffer | undefined>;
  /** The bytes as a stream, so that serving them holds no more than a buffer's worth; undefined when missing. */
  open(key: string): Promise<StoredBytes | undefined>;
  /** Removes the bytes; removing a missing key is not an error. */
  remove(key: string): Promise<void>;
}

async function unlessMissing<T>(reading: Promise<T>): Promise<T | undefined> {
  try {
    return await reading;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Files under a directory (by default `$TAILOR_DATA_DIR/files`), written atomically. */
export class LocalDiskStorage implements FileStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!/^[a-z0-9_./-]+$/.test(key) || key.includes('..')) throw new Error(`Unsafe storage key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
    const handle = await fs.open(temporary, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, target);
  }

  get(key: string): Promise<Buffer | undefined> {
    return unlessMissing(fs.readFile(this.pathOf(key)));
  }

  async open(key: string): Promise<StoredBytes | undefined> {
    const handle = await unlessMissing(fs.open(this.pathOf(key), 'r'));
    if (!handle) return undefined;
    try {
      const { size } = await handle.stat();
      // The stream closes the handle when it ends or is destroyed. Bounded by the size, it ends with
      // its last bytes rather than after one more read, so the answer ends as its last bytes go out.
      return { size, body: handle.createReadStream(size > 0 ? { start: 0, end: size - 1 } : {}) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }
}
