import path from 'node:path';
import type { Config } from './config.ts';
import { type FileStorage, LocalDiskStorage } from './resources/files/storage.ts';

/** The configured store: an S3-compatible bucket when TAILOR_S3_BUCKET is set, else the data dir. */
export async function createFileStorage(config: Pick<Config, 's3' | 'dataDir'>): Promise<FileStorage> {
  if (!config.s3) return new LocalDiskStorage(path.join(config.dataDir, 'files'));
  // Loaded only here, so that a process without S3 never loads the AWS SDK.
  const { S3Storage } = await import('./resources/files/s3-storage.ts');
  const { bucket, prefix, region, endpoint, accessKeyId, secretAccessKey, forcePathStyle } = config.s3;
  return new S3Storage({
    bucket,
    prefix,
    client: {
      region,
      endpoint,
      forcePathStyle,
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
    },
  });
}
