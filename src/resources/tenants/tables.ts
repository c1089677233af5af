/** Row types of the tenants table. Timestamps are Unix epoch milliseconds. */
export interface TenantsTable {
  id: string;
  slug: string;
  name: string;
  created_at: number;
}

export interface TenantsTables {
  tenants: TenantsTable;
}
