import type { Kysely, Selectable } from 'kysely';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { FilesTable, FilesTables } from './tables.ts';

export type FileRow = Omit<Selectable<FilesTable>, 'tenant_id'>;
/** A file as the purge sees it: across tenants, so with its tenant. */
export type OwnedFile = Pick<Selectable<FilesTable>, 'tenant_id' | 'id'>;

const COLUMNS = [
  'id',
  'content_type',
  'size',
  'sha256',
  'has_preview',
  'created_at',
  'deleted_at',
  'bytes_removed_at',
] as const;

export async function insertFile(db: TenantDb<FilesTables>, row: FileRow): Promise<void> {
  await db.insertInto('files', row).execute();
}

export function findFile(db: TenantDb<FilesTables>, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findFiles(db: TenantDb<FilesTables>, ids: string[]): Promise<FileRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('files').select(COLUMNS).where('id', 'in', ids).execute();
}

/** Records that the file's preview is stored, unless the file was given up meanwhile. */
export async function markPreviewed(db: TenantDb<FilesTables>, id: string): Promise<void> {
  await db
    .updateTable('files')
    .set({ has_preview: 1 })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

/**
 * Writes to the file's row when the file is live, and so holds the row until the transaction
 * ends: a purge that gives the file up concurrently either waits for this transaction (and then
 * sees the reference it stored) or has committed first (and then this matches nothing).
 */
export async function lockLiveFile(db: TenantDb<FilesTables>, id: string): Promise<boolean> {
  const result = await db
    .updateTable('files')
    .set({ deleted_at: null })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/*
 * The purge's side of files. It works across tenants on the raw database and scopes every change
 * by the row's own tenant_id.
 */

/** Gives the file up (its URLs stop, its bytes are to be removed) unless it already is. */
export async function giveUpFile(
  db: Kysely<FilesTables>,
  tenantId: string,
  id: string,
  at: number,
): Promise<void> {
  await db
    .updateTable('files')
    .set({ deleted_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Files given up whose bytes are still to be removed. */
export function filesAwaitingRemoval(db: Kysely<FilesTables>, limit: number): Promise<OwnedFile[]> {
  return db
    .selectFrom('files')
    .select(['tenant_id', 'id'])
    .where('bytes_removed_at', 'is', null)
    .where('deleted_at', 'is not', null)
    .orderBy('deleted_at')
    .limit(limit)
    .execute();
}

/** Takes the file back into use: a reference to it was stored while it was being given up. */
export async function reviveFile(db: Kysely<FilesTables>, file: OwnedFile): Promise<void> {
  await db
    .updateTable('files')
    .set({ deleted_at: null })
    .where('tenant_id', '=', file.tenant_id)
    .where('id', '=', file.id)
    .where('bytes_removed_at', 'is', null)
    .execute();
}

export async function markBytesRemoved(db: Kysely<FilesTables>, file: OwnedFile, at: number): Promise<void> {
  await db
    .updateTable('files')
    .set({ bytes_removed_at: at })
    .where('tenant_id', '=', file.tenant_id)
    .where('id', '=', file.id)
    .execute();
}
