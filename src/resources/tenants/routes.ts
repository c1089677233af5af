import type { Database } from '../../db/connection.ts';
import type { Api } from '../../http/types.ts';
import { CurrentTenant } from './schema.ts';
import { currentTenant } from './service.ts';

export interface TenantNeeds {
  /** Where a tenant's pages start on the pages origin. */
  pagesBase: (slug: string) => string;
}

/** GET /v0/tenant: who the API key is, for any key; tenants are read across the database. */
export async function tenantRoutes(
  api: Api,
  { pagesBase, database }: TenantNeeds & { database: Database },
): Promise<void> {
  api.get(
    '/v0/tenant',
    {
      schema: {
        tags: ['Tenant'],
        operationId: 'getTenant',
        summary: "The caller's tenant and key",
        description:
          "The tenant the API key belongs to, where its pages start on the pages origin (`pagesUrl`: a link's path follows it) and the key itself. Any live key may ask, read-only ones too.",
        response: { 200: CurrentTenant },
      },
    },
    (request) => currentTenant(database.acrossTenants(), request.caller, pagesBase),
  );
}
