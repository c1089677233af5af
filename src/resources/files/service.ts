import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../db/connection.ts';
import { fieldsOf, nullableTimestamp, timestamp } from '../../db/fields.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { JobContext } from '../../jobs/types.ts';
import type { Logger } from '../../jobs/worker.ts';
import { AppError, invalidField, notFound } from '../../shared/errors.ts';
import { QueueClosed, QueueFull } from '../../shared/fair-queue.ts';
import { newId } from '../../shared/ids.ts';
import { downloadUrl, imageUrl, type LinkSigner, PREVIEW_FORMAT, storageKey } from './download-links.ts';
import type { ImagePool } from './image-pool.ts';
import { IMAGE_FORMATS, IMAGE_TYPES, type ImageType, isImageType } from './images.ts';
import { File } from './schema.ts';
import type { FileStorage } from './storage.ts';
import {
  type FileRow,
  filesAwaitingRemoval,
  findFile,
  findFiles,
  giveUpFile,
  insertFile,
  lockLiveFile,
  markBytesRemoved,
  markPreviewed,
  reviveFile,
} from './store.ts';
import type { FilesTables } from './tables.ts';

export type { LinkSigner } from './download-links.ts';

export interface FileLinks {
  downloadUrl: string | null;
  previewDownloadUrl: string | null;
}

/**
 * What storing an upload needs besides its tenant: the file storage, the image pool that checks
 * the bytes and makes the preview, link signing, and, for the preview recorded after the request,
 * the database and a log. The Fastify instance has them all.
 */
export interface FileServices extends LinkSigner {
  storage: FileStorage;
  images: ImagePool;
  database: Database;
  log: Pick<Logger, 'warn'>;
}

export interface Upload {
  /** The request's Content-Type header, parameters and all. */
  contentType: string | undefined;
  /** The parsed body: the bytes when the Content-Type is an image type. */
  body: unknown;
}

const REMOVAL_BATCH = 100;
const NO_LINKS: FileLinks = { downloadUrl: null, previewDownloadUrl: null };

function linksOf(tenantId: string, links: LinkSigner, row: FileRow, now: number): FileLinks {
  if (row.deleted_at !== null) return NO_LINKS;
  const format = IMAGE_FORMATS[row.content_type as ImageType];
  const target = { tenantId, fileId: row.id };
  return {
    downloadUrl: downloadUrl(links, { ...target, variant: 'original', format }, now),
    previewDownloadUrl:
      row.has_preview === 1
        ? downloadUrl(links, { ...target, variant: 'preview', format: PREVIEW_FORMAT }, now)
        : null,
  };
}

/** The one place a file's field meets its column; its links are signed when it is shown. */
const fileFields = fieldsOf<FileRow>()(Type.Omit(File, ['downloadUrl', 'previewDownloadUrl']), {
  fileId: 'id',
  // Stored only after isImageType accepted it.
  contentType: (row) => row.content_type as ImageType,
  size: 'size',
  sha256: 'sha256',
  createdAt: { column: 'created_at', codec: timestamp },
  deletedAt: { column: 'deleted_at', codec: nullableTimestamp },
});

function present(db: TenantDb, links: LinkSigner, row: FileRow): File {
  return { ...fileFields.present(row), ...linksOf(db.tenantId, links, row, Date.now()) };
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Whether the bytes are what their type says, as the image pool finds in the tenant's turn. */
async function isImageOf(
  images: ImagePool,
  tenantId: string,
  type: ImageType,
  bytes: Buffer,
): Promise<boolean> {
  try {
    return await images.check(tenantId, type, bytes);
  } catch (error) {
    if (error instanceof QueueFull) {
      throw new AppError(
        'rate_limited',
        'Too many uploads of this tenant are waiting to be checked; retry once some are done',
      );
    }
    if (error instanceof QueueClosed) throw error;
    // Past the time limit, or a decoder that ended its process: bytes that cannot be checked.
    return false;
  }
}

async function checkedBytes(
  tenantId: string,
  images: ImagePool,
  upload: Upload,
): Promise<{ type: ImageType; bytes: Buffer }> {
  const type = mediaType(upload.contentType);
  if (!isImageType(type) || !Buffer.isBuffer(upload.body)) {
    throw new AppError(
      'unsupported_media_type',
      `Send the file's bytes as the body with Content-Type ${IMAGE_TYPES.join(', ')}`,
    );
  }
  const bytes = upload.body;
  if (bytes.length === 0) throw invalidField('/body', 'must not be empty');
  if (!(await isImageOf(images, tenantId, type, bytes))) {
    throw new AppError(
      'unsupported_media_type',
      `The bytes are not a valid ${type} file (or could not be checked in time), though the Content-Type says they are`,
    );
  }
  return { type, bytes };
}

/**
 * Queues the file's preview in the image pool. When it is made it is stored, then recorded on the
 * file (if the file was given up meanwhile, the purge removes the stored preview with the rest).
 */
function previewLater(services: FileServices, tenantId: string, fileId: string): void {
  services.images.makePreview(tenantId, {
    load: () => services.storage.get(storageKey(tenantId, fileId, 'original')),
    async keep(preview) {
      await services.storage.put(storageKey(tenantId, fileId, 'preview'), preview);
      await markPreviewed(services.database.forTenant(tenantId), fileId);
    },
    failed: (error) => services.log.warn({ err: error, tenantId, fileId }, 'no preview made'),
  });
}

/**
 * Stores an uploaded image: checks that its bytes are what its Content-Type says, keeps them,
 * records the file, and queues its preview (`previewDownloadUrl` is null until it is made). The
 * bytes are stored first, so a recorded file always has them; bytes left by a crash before the
 * record are never referenced.
 */
export async function uploadFile(db: TenantDb, services: FileServices, upload: Upload): Promise<File> {
  const { type, bytes } = await checkedBytes(db.tenantId, services.images, upload);
  const row: FileRow = {
    id: newId('file'),
    content_type: type,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    has_preview: 0,
    created_at: Date.now(),
    deleted_at: null,
    bytes_removed_at: null,
  };
  const key = storageKey(db.tenantId, row.id, 'original');
  await services.storage.put(key, bytes);
  try {
    await insertFile(db, row);
  } catch (error) {
    await services.storage.remove(key).catch(() => {});
    throw error;
  }
  db.afterCommit(() => previewLater(services, db.tenantId, row.id));
  return present(db, services, row);
}

export async function getFile(db: TenantDb, links: LinkSigner, id: string): Promise<File> {
  const row = await findFile(db, id);
  if (!row) throw notFound(`File ${id}`);
  return present(db, links, row);
}

/**
 * Fails with validation_failed at `path` unless `fileId` is an image file of the tenant that is
 * not deleted (every file is an image: only image types are accepted). Call it in the transaction
 * that stores the reference: it holds the file's row until then, so that the purge cannot give
 * the file up under a reference being made.
 */
export async function assertImageFile(db: TenantDb, fileId: string, path: string): Promise<void> {
  if (await lockLiveFile(db, fileId)) return;
  const row = await findFile(db, fileId);
  throw invalidField(
    path,
    row ? `file ${fileId} is deleted` : `must be the id of an image file of this tenant`,
  );
}

/** Signed links to the bytes and preview of each file, by file id; null links for a deleted file. */
export async function fileLinks(
  db: TenantDb,
  links: LinkSigner,
  fileIds: string[],
): Promise<Map<string, FileLinks>> {
  const rows = await findFiles(db, [...new Set(fileIds)]);
  const now = Date.now();
  return new Map(rows.map((row) => [row.id, linksOf(db.tenantId, links, row, now)]));
}

/**
 * The lasting image links of the files that are not deleted, by file id, for public pages: no
 * expiry, so that a page made with them can be kept and its images cached (download-links.ts).
 */
export async function imageLinks(
  db: TenantDb,
  links: LinkSigner,
  fileIds: string[],
): Promise<Map<string, string>> {
  const rows = await findFiles(db, [...new Set(fileIds)]);
  return new Map(
    rows
      .filter((row) => row.deleted_at === null)
      .map((row) => [
        row.id,
        imageUrl(links, {
          tenantId: db.tenantId,
          fileId: row.id,
          format: IMAGE_FORMATS[row.content_type as ImageType],
        }),
      ]),
  );
}

/** Whether the file is the tenant's and not deleted: a page image's link serves it only then. */
export async function isLiveFile(db: TenantDb, fileId: string): Promise<boolean> {
  const row = await findFile(db, fileId);
  return row !== undefined && row.deleted_at === null;
}

/*
 * Giving files up, for the purge: across tenants on the raw database, every change scoped by the
 * row's own tenant_id.
 */

/** Marks the file given up: its links stop and removeGivenUpBytes will remove its bytes. */
export async function giveUp(
  db: Kysely<FilesTables>,
  tenantId: string,
  fileId: string,
  at: number,
): Promise<void> {
  await giveUpFile(db, tenantId, fileId, at);
}

/**
 * Removes the bytes of every file given up. A file that `stillUsed` says is referenced again (a
 * reference was stored while it was being given up) is taken back instead. Safe to repeat: a
 * crash between giving a file up and removing its bytes is finished by the next run.
 */
export async function removeGivenUpBytes(
  { database, now }: JobContext,
  storage: FileStorage,
  stillUsed: (tenantId: string, fileId: string) => Promise<boolean>,
): Promise<void> {
  for (;;) {
    const batch = await filesAwaitingRemoval(database.acrossTenants(), REMOVAL_BATCH);
    for (const file of batch) {
      if (await stillUsed(file.tenant_id, file.id)) {
        await reviveFile(database.acrossTenants(), file);
        continue;
      }
      // The preview is removed whether or not it was recorded: one made as the file was given up is
      // stored but never recorded.
      await storage.remove(storageKey(file.tenant_id, file.id, 'original'));
      await storage.remove(storageKey(file.tenant_id, file.id, 'preview'));
      await markBytesRemoved(database.acrossTenants(), file, now);
    }
    if (batch.length < REMOVAL_BATCH) return;
  }
}
