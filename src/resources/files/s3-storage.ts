import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { FileStorage, StoredBytes } from './storage.ts';

export interface S3StorageOptions {
  bucket: string;
  /** Prepended to every key, e.g. `tailor/`; empty by default. */
  prefix?: string;
  /** Region, endpoint (for S3-compatible servers such as MinIO), credentials, path-style addressing. */
  client: S3ClientConfig;
}

/**
 * Files in an S3-compatible bucket. Kept in its own module so that the AWS SDK is loaded only by a
 * process configured to use it.
 */
export class S3Storage implements FileStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StorageOptions) {
    this.client = new S3Client(options.client);
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: bytes }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    const object = await this.object(key);
    return object ? Buffer.from(await object.Body.transformToByteArray()) : undefined;
  }

  async open(key: string): Promise<StoredBytes | undefined> {
    const object = await this.object(key);
    if (!object) return undefined;
    // In Node the SDK's body is the HTTP response from the bucket: reading it at the client's pace
    // leaves the rest of the object in the bucket, not in memory.
    return { size: object.ContentLength, body: object.Body as Readable };
  }

  private async object(key: string) {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }),
      );
      return object.Body ? { ...object, Body: object.Body } : undefined;
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success, which is what remove promises.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}
