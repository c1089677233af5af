import type { Selectable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { BrandsTable, BrandsTables } from './tables.ts';

export type BrandRow = Omit<Selectable<BrandsTable>, 'tenant_id'>;
/** What a PUT replaces: everything but the brand's identity and its creation. */
export type BrandProfile = Omit<BrandRow, 'id' | 'brand_id' | 'created_at' | 'updated_at'>;

const COLUMNS = [
  'id',
  'brand_id',
  'name',
  'website',
  'logo_asset_id',
  'color_primary',
  'color_accent',
  'voice',
  'footer_text',
  'created_at',
  'updated_at',
] as const;

export function findBrand(db: TenantDb<BrandsTables>, brandId: string): Promise<BrandRow | undefined> {
  return db.selectFrom('brands').select(COLUMNS).where('brand_id', '=', brandId).executeTakeFirst();
}

export async function insertBrand(db: TenantDb<BrandsTables>, row: BrandRow): Promise<void> {
  await db.insertInto('brands', row).execute();
}

export async function updateBrand(
  db: TenantDb<BrandsTables>,
  brandId: string,
  profile: BrandProfile & { updated_at: number },
): Promise<void> {
  await db.updateTable('brands').set(profile).where('brand_id', '=', brandId).execute();
}

export async function deleteBrand(db: TenantDb<BrandsTables>, brandId: string): Promise<boolean> {
  const result = await db.deleteFrom('brands').where('brand_id', '=', brandId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function brandNames(db: TenantDb<BrandsTables>): Promise<{ brand_id: string; name: string }[]> {
  return db.selectFrom('brands').select(['brand_id', 'name']).execute();
}

export async function listBrands(db: TenantDb<BrandsTables>, page: Paging): Promise<Paged<BrandRow>> {
  const matching = db.selectFrom('brands');
  const [rows, total] = await Promise.all([
    descendingAfter(matching.select(COLUMNS), 'id', page),
    db.countRows(matching),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}
