/** Row types of the tenant-domain table. */

export interface TenantDomainsTable {
  id: string;
  tenant_id: string;
  /** Lowercase, without a trailing dot; unique across every tenant. */
  hostname: string;
  created_at: number;
  updated_at: number;
}

export type TenantDomainsTables = {
  tenant_domains: TenantDomainsTable;
};
