import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { FileStorage } from './storage.ts';

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
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }),
      );
      return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : undefined;
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
