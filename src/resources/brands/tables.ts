/** Row types of the brands table. */
export interface BrandsTable {
  /** Internal, for ordering: the API names a brand by `brand_id`, which its client chose. */
  id: string;
  tenant_id: string;
  brand_id: string;
  name: string;
  website: string | null;
  logo_asset_id: string | null;
  color_primary: string | null;
  color_accent: string | null;
  voice: string | null;
  footer_text: string | null;
  created_at: number;
  updated_at: number;
}

export interface BrandsTables {
  brands: BrandsTable;
}
