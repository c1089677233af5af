import { CREATED_AND_UPDATED, fieldsOf } from '../../db/fields.ts';
import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { invalidField, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { Brand, BrandInput } from './schema.ts';
import {
  type BrandProfile,
  type BrandRow,
  brandNames,
  deleteBrand,
  findBrand,
  insertBrand,
  listBrands,
  updateBrand,
} from './store.ts';

/**
 * Fails with a 400 at `path` unless `assetId` is an active image asset of the tenant. The assets
 * resource answers; the server wires it in (src/wiring.ts).
 */
export type LogoCheck = (db: TenantDb, assetId: string, path: string) => Promise<void>;

/** A brand and whether this request made it (201) or replaced it (200). */
export interface PutBrand {
  brand: Brand;
  created: boolean;
}

/** A PUT that lost the race to create the same brand runs again and replaces it. */
const PUT_ATTEMPTS = 2;

/** The one place a brand's field meets its column. */
const brandFields = fieldsOf<BrandRow>()(Brand, {
  brandId: 'brand_id',
  name: 'name',
  website: 'website',
  logoAssetId: 'logo_asset_id',
  // Two columns: written by the service, lowercased.
  colors: (row) => ({ primary: row.color_primary, accent: row.color_accent }),
  voice: 'voice',
  footerText: 'footer_text',
  ...CREATED_AND_UPDATED,
});

const present = brandFields.present;

function profileOf(input: BrandInput): BrandProfile {
  const { colors, ...fields } = input;
  return {
    ...brandFields.columns(BrandInput, fields),
    color_primary: colors?.primary?.toLowerCase() ?? null,
    color_accent: colors?.accent?.toLowerCase() ?? null,
  };
}

function sameProfile(row: BrandRow, profile: BrandProfile): boolean {
  return Object.entries(profile).every(([column, value]) => row[column as keyof BrandRow] === value);
}

/**
 * Creates or replaces the profile of a brand id, whole: a field left out is cleared. Replacing a
 * profile with the same one leaves it, and its updatedAt, unchanged.
 */
export async function putBrand(db: TenantDb, brandId: string, input: BrandInput, checkLogo: LogoCheck) {
  if (input.website !== undefined && !URL.canParse(input.website))
    throw invalidField('/body/website', 'must be an absolute http(s) URL');
  if (input.logoAssetId !== undefined) await checkLogo(db, input.logoAssetId, '/body/logoAssetId');
  const profile = profileOf(input);
  return db.retryingTransaction(PUT_ATTEMPTS, async (tx): Promise<PutBrand> => {
    const now = Date.now();
    const current = await findBrand(tx, brandId);
    if (!current) {
      const row: BrandRow = {
        id: newId('brand'),
        brand_id: brandId,
        ...profile,
        created_at: now,
        updated_at: now,
      };
      await insertBrand(tx, row);
      return { brand: present(row), created: true };
    }
    if (sameProfile(current, profile)) return { brand: present(current), created: false };
    await updateBrand(tx, brandId, { ...profile, updated_at: now });
    return { brand: present({ ...current, ...profile, updated_at: now }), created: false };
  });
}

export async function getBrand(db: TenantDb, brandId: string): Promise<Brand> {
  const row = await findBrand(db, brandId);
  if (!row) throw notFound(`Brand ${brandId}`);
  return present(row);
}

/** The brand's profile, or undefined when the brand id has none: a page may name a brand without one. */
export async function brandProfile(db: TenantDb, brandId: string): Promise<Brand | undefined> {
  const row = await findBrand(db, brandId);
  return row ? present(row) : undefined;
}

/** The names of the tenant's other brands: a page of `brandId` must not speak of them. */
export async function otherBrandNames(db: TenantDb, brandId: string): Promise<string[]> {
  return (await brandNames(db)).filter((brand) => brand.brand_id !== brandId).map((brand) => brand.name);
}

export async function listAllBrands(db: TenantDb, page: Paging): Promise<Paged<Brand>> {
  return mapPaged(await listBrands(db, page), present);
}

/** Deletes the profile; pages keep their brandId and are served without a profile. */
export async function removeBrand(
  db: TenantDb,
  brandId: string,
): Promise<{ brandId: string; deleted: true }> {
  if (!(await deleteBrand(db, brandId))) throw notFound(`Brand ${brandId}`);
  return { brandId, deleted: true };
}
