/** Row types of the assets tables. */
export type AssetLifecycleState = 'active' | 'trashed' | 'deleted';

export interface AssetsTable {
  id: string;
  tenant_id: string;
  name: string;
  purpose: string;
  /** JSON array of strings. */
  tags: string;
  /** The tags joined by newlines: the column that `query` searches, since JSON text would match across tags. */
  tags_text: string;
  ai_description: string | null;
  parent_asset_id: string | null;
  hidden: number;
  /** `data.type` of the contract. */
  data_type: string;
  file_id: string;
  lifecycle_state: AssetLifecycleState;
  created_at: number;
  updated_at: number;
  trashed_at: number | null;
  deleted_at: number | null;
}

export interface AssetsTables {
  assets: AssetsTable;
}
