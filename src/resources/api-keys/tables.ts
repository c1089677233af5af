/** Row types of the API keys table. Flags are 0/1 integers on both databases. */
export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  /** SHA-256 of the key: the key itself is never stored. */
  key_hash: string;
  display_prefix: string;
  read_only: number;
  created_at: number;
  revoked_at: number | null;
}

export interface ApiKeysTables {
  api_keys: ApiKeysTable;
}
