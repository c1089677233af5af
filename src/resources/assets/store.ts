import type { Kysely, Selectable } from 'kysely';
import { descendingAfter, keysetPage, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { AssetLifecycleState, AssetsTable, AssetsTables } from './tables.ts';

export type AssetRow = Omit<Selectable<AssetsTable>, 'tenant_id'>;
/** An asset as the purge sees it: across tenants, so with its tenant. */
export type ExpiredAsset = Pick<Selectable<AssetsTable>, 'tenant_id' | 'id' | 'file_id'>;

export interface AssetFilter {
  assetType?: string;
  query?: string;
}

const COLUMNS = [
  'assets.id',
  'assets.name',
  'assets.purpose',
  'assets.tags',
  'assets.tags_text',
  'assets.ai_description',
  'assets.parent_asset_id',
  'assets.hidden',
  'assets.data_type',
  'assets.file_id',
  'assets.lifecycle_state',
  'assets.created_at',
  'assets.updated_at',
  'assets.trashed_at',
  'assets.deleted_at',
] as const;

const SEARCHED = ['name', 'purpose', 'tags_text'];

export async function insertAsset(db: TenantDb<AssetsTables>, row: AssetRow): Promise<void> {
  await db.insertInto('assets', row).execute();
}

export function findAsset(db: TenantDb<AssetsTables>, id: string): Promise<AssetRow | undefined> {
  return db.selectFrom('assets').select(COLUMNS).where('assets.id', '=', id).executeTakeFirst();
}

/** Moves the asset from state `from` to `to` at `at`; false when it was not in `from`. */
export async function moveAsset(
  db: TenantDb<AssetsTables>,
  id: string,
  from: AssetLifecycleState,
  to: { lifecycle_state: AssetLifecycleState; trashed_at: number | null; updated_at: number },
): Promise<boolean> {
  const result = await db
    .updateTable('assets')
    .set(to)
    .where('id', '=', id)
    .where('lifecycle_state', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function matching(db: TenantDb<AssetsTables>, state: AssetLifecycleState, filter: AssetFilter) {
  let query = db.selectFrom('assets').where('assets.lifecycle_state', '=', state);
  if (filter.assetType !== undefined) query = query.where('assets.data_type', '=', filter.assetType);
  if (filter.query)
    query = query.where(db.search.substringMatch('assets', SEARCHED, filter.query, db.tenantId));
  return query;
}

/** Assets in one state, newest first. */
export async function listAssets(
  db: TenantDb<AssetsTables>,
  state: AssetLifecycleState,
  filter: AssetFilter,
  page: Paging,
): Promise<Paged<AssetRow>> {
  const assets = matching(db, state, filter);
  const [rows, total] = await Promise.all([
    descendingAfter(assets.select(COLUMNS), 'assets.id', page),
    db.countRows(assets),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

/** Trashed assets, most recently trashed first (ties by id, newest first). */
export async function listTrash(
  db: TenantDb<AssetsTables>,
  filter: AssetFilter,
  page: Paging,
): Promise<Paged<AssetRow>> {
  const assets = matching(db, 'trashed', filter);
  const [rows, total] = await Promise.all([
    keysetPage(
      assets.select(COLUMNS),
      [
        { column: 'assets.trashed_at', direction: 'desc' },
        { column: 'assets.id', direction: 'desc' },
      ],
      page,
    ),
    db.countRows(assets),
  ]);
  return pagedOf(rows, page, (row) => [row.trashed_at ?? 0, row.id], total);
}

/*
 * The purge's side of assets. It works across tenants on the raw database and scopes every change
 * by the row's own tenant_id.
 */

/** Trashed assets trashed at or before `cutoff`, oldest first. */
export function expiredTrash(
  db: Kysely<AssetsTables>,
  cutoff: number,
  limit: number,
): Promise<ExpiredAsset[]> {
  return db
    .selectFrom('assets')
    .select(['tenant_id', 'id', 'file_id'])
    .where('lifecycle_state', '=', 'trashed')
    .where('trashed_at', '<=', cutoff)
    .orderBy('trashed_at')
    .limit(limit)
    .execute();
}

/** Deletes the asset for good unless it was restored (or trashed again later) meanwhile; true when it did. */
export async function markDeleted(
  db: Kysely<AssetsTables>,
  asset: ExpiredAsset,
  cutoff: number,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('assets')
    .set({ lifecycle_state: 'deleted', deleted_at: at, updated_at: at })
    .where('tenant_id', '=', asset.tenant_id)
    .where('id', '=', asset.id)
    .where('lifecycle_state', '=', 'trashed')
    .where('trashed_at', '<=', cutoff)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** True when an asset that is not deleted uses the file. */
export async function fileInUse(
  db: Kysely<AssetsTables>,
  tenantId: string,
  fileId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('assets')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('file_id', '=', fileId)
    .where('lifecycle_state', '<>', 'deleted')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The file of each asset that is not deleted, in one query. */
export async function filesOfAssets(db: TenantDb<AssetsTables>, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('assets')
    .select(['id', 'file_id'])
    .where('id', 'in', [...new Set(ids)])
    .where('lifecycle_state', '!=', 'deleted')
    .execute();
  return new Map(rows.map((row) => [row.id, row.file_id]));
}
