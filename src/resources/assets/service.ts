import type { Page, PageRequest } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidField, invalidState, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { toNullableTimestamp, toTimestamp } from '../../time.ts';
import { assertImageFile, type FileLinks, fileLinks, type LinkSigner } from '../files/service.ts';
import type { Asset, AssetCreate } from './schema.ts';
import {
  type AssetFilter,
  type AssetRow,
  filesOfAssets,
  findAsset,
  insertAsset,
  listAssets,
  listTrash,
  moveAsset,
} from './store.ts';
import type { AssetLifecycleState } from './tables.ts';

const NO_LINKS: FileLinks = { downloadUrl: null, previewDownloadUrl: null };

function present(db: TenantDb, row: AssetRow, links: FileLinks): Asset {
  return {
    assetId: row.id,
    tenantId: db.tenantId,
    name: row.name,
    purpose: row.purpose,
    tags: JSON.parse(row.tags) as string[],
    aiDescription: row.ai_description,
    parentAssetId: row.parent_asset_id,
    hidden: row.hidden === 1,
    data: { type: row.data_type, fileId: row.file_id },
    lifecycleState: row.lifecycle_state,
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
    trashedAt: toNullableTimestamp(row.trashed_at),
    deletedAt: toNullableTimestamp(row.deleted_at),
    ...(row.lifecycle_state === 'deleted' ? NO_LINKS : links),
  };
}

/** Presents assets with their files' signed links, fetched in one query. */
async function presentAll(db: TenantDb, signer: LinkSigner, rows: AssetRow[]): Promise<Asset[]> {
  const links = await fileLinks(
    db,
    signer,
    rows.map((row) => row.file_id),
  );
  return rows.map((row) => present(db, row, links.get(row.file_id) ?? NO_LINKS));
}

async function presentOne(db: TenantDb, signer: LinkSigner, row: AssetRow): Promise<Asset> {
  return (await presentAll(db, signer, [row]))[0] as Asset;
}

async function requireAsset(db: TenantDb, id: string): Promise<AssetRow> {
  const row = await findAsset(db, id);
  if (!row) throw notFound(`Asset ${id}`);
  return row;
}

/** Fails with a 400 at `path` unless the asset is the tenant's and not deleted. */
export async function assertLiveAsset(db: TenantDb, assetId: string, path: string): Promise<void> {
  const asset = await findAsset(db, assetId);
  if (!asset) throw invalidField(path, 'must be the id of an asset of this tenant');
  if (asset.lifecycle_state === 'deleted') throw invalidField(path, `asset ${assetId} is deleted`);
}

/**
 * Creates an image asset of an image file of the tenant. The file check and the insert share a
 * transaction, so that the purge cannot remove the file's bytes in between.
 */
export async function createAsset(db: TenantDb, signer: LinkSigner, input: AssetCreate): Promise<Asset> {
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
    await assertImageFile(tx, input.fileId, '/body/fileId');
    await insertAsset(tx, row);
  });
  return presentOne(db, signer, row);
}

export async function getAsset(db: TenantDb, signer: LinkSigner, id: string): Promise<Asset> {
  return presentOne(db, signer, await requireAsset(db, id));
}

/**
 * Moves the asset from `from` to `to`. Already in `to`: returned unchanged. Deleted: 409, since a
 * deleted asset is gone for good.
 */
async function transition(
  db: TenantDb,
  signer: LinkSigner,
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
  return presentOne(db, signer, row);
}

export function trashAsset(db: TenantDb, signer: LinkSigner, id: string): Promise<Asset> {
  return transition(db, signer, id, 'active', 'trashed', 'trashed');
}

export function restoreAsset(db: TenantDb, signer: LinkSigner, id: string): Promise<Asset> {
  return transition(db, signer, id, 'trashed', 'active', 'restored');
}

async function presentPage(db: TenantDb, signer: LinkSigner, page: Page<AssetRow>): Promise<Page<Asset>> {
  return { ...page, items: await presentAll(db, signer, page.items) };
}

export async function listAssetsInState(
  db: TenantDb,
  signer: LinkSigner,
  state: AssetLifecycleState,
  filter: AssetFilter,
  page: PageRequest,
): Promise<Page<Asset>> {
  return presentPage(db, signer, await listAssets(db, state, filter, page));
}

export async function listTrashedAssets(
  db: TenantDb,
  signer: LinkSigner,
  filter: AssetFilter,
  page: PageRequest,
): Promise<Page<Asset>> {
  return presentPage(db, signer, await listTrash(db, filter, page));
}

/**
 * The file behind each asset, for showing assets on public pages. A deleted asset has none (its API
 * answer has no links); a trashed one still has its file, since the trash can be undone.
 */
export function assetFiles(db: TenantDb, assetIds: string[]): Promise<Map<string, string>> {
  return filesOfAssets(db, assetIds);
}
