import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { CREATED_AND_UPDATED, fieldsOf, flag, json, nullableTimestamp } from '../../db/fields.ts';
import type { Paged, Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { found, invalidField, invalidState } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { Asset, type AssetCreate } from './schema.ts';
import {
  type AssetFilter,
  type AssetRow,
  expiredTrash,
  fileInUse,
  filesOfAssets,
  findAsset,
  insertAsset,
  listAssets,
  listTrash,
  markDeleted,
  moveAsset,
} from './store.ts';
import type { AssetLifecycleState, AssetsTables } from './tables.ts';

/** Signed links to a file's bytes and its preview, as an asset shows them. */
export type FileLinks = Pick<Asset, 'downloadUrl' | 'previewDownloadUrl'>;

/**
 * What assets need of the files whose images they are. The files resource answers; the server
 * wires it in (src/wiring.ts).
 */
export interface AssetFiles {
  /**
   * Fails with a 400 at `path` unless `fileId` is an image file of the tenant that is not deleted;
   * inside a transaction it holds the file until the transaction ends.
   */
  assertImageFile(db: TenantDb, fileId: string, path: string): Promise<void>;
  /** Signed links of each file, by file id. */
  links(db: TenantDb, fileIds: string[]): Promise<Map<string, FileLinks>>;
}

const NO_LINKS: FileLinks = { downloadUrl: null, previewDownloadUrl: null };

/** The one place an asset's field meets its column; its tenant and its file's links are not in its row. */
const assetFields = fieldsOf<AssetRow>()(
  Type.Omit(Asset, ['tenantId', 'downloadUrl', 'previewDownloadUrl']),
  {
    assetId: 'id',
    name: 'name',
    purpose: 'purpose',
    tags: { column: 'tags', codec: json<string[]>() },
    aiDescription: 'ai_description',
    parentAssetId: 'parent_asset_id',
    hidden: { column: 'hidden', codec: flag },
    // Two columns: written by the service.
    data: (row) => ({ type: row.data_type, fileId: row.file_id }),
    lifecycleState: 'lifecycle_state',
    ...CREATED_AND_UPDATED,
    trashedAt: { column: 'trashed_at', codec: nullableTimestamp },
    deletedAt: { column: 'deleted_at', codec: nullableTimestamp },
  },
);

function present(db: TenantDb, row: AssetRow, links: FileLinks): Asset {
  return {
    ...assetFields.present(row),
    tenantId: db.tenantId,
    ...(row.lifecycle_state === 'deleted' ? NO_LINKS : links),
  };
}

/** Presents assets with their files' signed links, fetched in one query. */
async function presentAll(db: TenantDb, files: AssetFiles, rows: AssetRow[]): Promise<Asset[]> {
  const links = await files.links(
    db,
    rows.map((row) => row.file_id),
  );
  return rows.map((row) => present(db, row, links.get(row.file_id) ?? NO_LINKS));
}

async function presentOne(db: TenantDb, files: AssetFiles, row: AssetRow): Promise<Asset> {
  return (await presentAll(db, files, [row]))[0] as Asset;
}

async function requireAsset(db: TenantDb, id: string): Promise<AssetRow> {
  return found(await findAsset(db, id), `Asset ${id}`);
}

async function requireAssetAt(db: TenantDb, assetId: string, path: string): Promise<AssetRow> {
  const asset = await findAsset(db, assetId);
  if (!asset) throw invalidField(path, 'must be the id of an asset of this tenant');
  return asset;
}

/** Fails with a 400 at `path` unless the asset is the tenant's and not deleted. */
export async function assertLiveAsset(db: TenantDb, assetId: string, path: string): Promise<void> {
  const asset = await requireAssetAt(db, assetId, path);
  if (asset.lifecycle_state === 'deleted') throw invalidField(path, `asset ${assetId} is deleted`);
}

/** Fails with a 400 at `path` unless the asset is an image asset of the tenant that is active (not in the trash). */
export async function assertActiveImageAsset(db: TenantDb, assetId: string, path: string): Promise<void> {
  const asset = await requireAssetAt(db, assetId, path);
  if (asset.lifecycle_state !== 'active')
    throw invalidField(path, `asset ${assetId} is ${asset.lifecycle_state}`);
  if (asset.data_type !== 'image') throw invalidField(path, `asset ${assetId} is not an image`);
}

/**
 * Creates an image asset of an image file of the tenant. The file check and the insert share a
 * transaction, so that the purge cannot remove the file's bytes in between.
 */
export async function createAsset(db: TenantDb, files: AssetFiles, input: AssetCreate): Promise<Asset> {
  const now = Date.now();
  const row: AssetRow = {
    id: newId('asset'),
    name: input.name,
    purpose: input.purpose,
    tags: '[]',
    tags_text: '',
    ai_description: null,
    parent_asset_id: input.parentAssetId ?? null,
    hidden: input.hidden ? 1 : 0,
    data_type: input.assetType,
    file_id: input.fileId,
    lifecycle_state: 'active',
    created_at: now,
    updated_at: now,
    trashed_at: null,
    deleted_at: null,
  };
  await db.transaction(async (tx) => {
    if (input.parentAssetId !== undefined)
      await assertLiveAsset(tx, input.parentAssetId, '/body/parentAssetId');
    await files.assertImageFile(tx, input.fileId, '/body/fileId');
    await insertAsset(tx, row);
  });
  return presentOne(db, files, row);
}

export async function getAsset(db: TenantDb, files: AssetFiles, id: string): Promise<Asset> {
  return presentOne(db, files, await requireAsset(db, id));
}

/**
 * Moves the asset from `from` to `to`. Already in `to`: returned unchanged. Deleted: 409, since a
 * deleted asset is gone for good.
 */
async function transition(
  db: TenantDb,
  files: AssetFiles,
  id: string,
  from: AssetLifecycleState,
  to: AssetLifecycleState,
  action: string,
): Promise<Asset> {
  const now = Date.now();
  const moved = await moveAsset(db, id, from, {
    lifecycle_state: to,
    trashed_at: to === 'trashed' ? now : null,
    updated_at: now,
  });
  const row = await requireAsset(db, id);
  if (!moved && row.lifecycle_state === 'deleted') {
    throw invalidState(`Asset ${id} is deleted (its 30 days in the trash are over); it cannot be ${action}`);
  }
  return presentOne(db, files, row);
}

export function trashAsset(db: TenantDb, files: AssetFiles, id: string): Promise<Asset> {
  return transition(db, files, id, 'active', 'trashed', 'trashed');
}

export function restoreAsset(db: TenantDb, files: AssetFiles, id: string): Promise<Asset> {
  return transition(db, files, id, 'trashed', 'active', 'restored');
}

async function presentPage(db: TenantDb, files: AssetFiles, page: Paged<AssetRow>): Promise<Paged<Asset>> {
  return { ...page, items: await presentAll(db, files, page.items) };
}

export async function listAssetsInState(
  db: TenantDb,
  files: AssetFiles,
  state: AssetLifecycleState,
  filter: AssetFilter,
  page: Paging,
): Promise<Paged<Asset>> {
  return presentPage(db, files, await listAssets(db, state, filter, page));
}

export async function listTrashedAssets(
  db: TenantDb,
  files: AssetFiles,
  filter: AssetFilter,
  page: Paging,
): Promise<Paged<Asset>> {
  return presentPage(db, files, await listTrash(db, filter, page));
}

/*
 * The purge's side of assets: across tenants on the raw database, every change scoped by the row's
 * own tenant_id.
 */

export const TRASH_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
const PURGE_BATCH = 200;

/**
 * Deletes for good every asset trashed at or before `cutoff`: `deleted`, `deletedAt` set, its links
 * gone; `onFileFreed` hears of each file that no asset uses any more. Each step is a conditional
 * update, so this is safe to repeat and to run beside requests: an asset restored meanwhile stays.
 */
export async function deleteExpiredTrash(
  db: Kysely<AssetsTables>,
  cutoff: number,
  now: number,
  onFileFreed: (tenantId: string, fileId: string) => Promise<void>,
): Promise<void> {
  for (;;) {
    const batch = await expiredTrash(db, cutoff, PURGE_BATCH);
    for (const asset of batch) {
      if (!(await markDeleted(db, asset, cutoff, now))) continue;
      if (!(await fileInUse(db, asset.tenant_id, asset.file_id)))
        await onFileFreed(asset.tenant_id, asset.file_id);
    }
    if (batch.length < PURGE_BATCH) return;
  }
}

/** Whether an asset that is not deleted uses the file. */
export function isFileInUse(db: Kysely<AssetsTables>, tenantId: string, fileId: string): Promise<boolean> {
  return fileInUse(db, tenantId, fileId);
}

/**
 * The file behind each asset, for showing assets on public pages. A deleted asset has none (its API
 * answer has no links); a trashed one still has its file, since the trash can be undone.
 */
export function assetFiles(db: TenantDb, assetIds: string[]): Promise<Map<string, string>> {
  return filesOfAssets(db, assetIds);
}
