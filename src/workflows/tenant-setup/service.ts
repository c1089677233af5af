import { acrossTenantsIn, type Database } from '../../db/connection.ts';
import { type IssuedKey, issueKey } from '../../resources/api-keys/service.ts';
import { createTenant, DEFAULT_TENANT_SLUG, isEmpty, type Tenant } from '../../resources/tenants/service.ts';
import { AppError } from '../../shared/errors.ts';

export type TenantWithKey = Tenant & { keyId: string; apiKey: string };

/** Creates a tenant together with its first API key, in one transaction. */
export async function createTenantWithKey(
  database: Database,
  input: { name: string; slug?: string; apiKey?: string },
): Promise<TenantWithKey> {
  return database
    .acrossTenants<unknown>()
    .transaction()
    .execute(async (trx) => {
      const tenant = await createTenant(acrossTenantsIn(trx), database.errors, input);
      const key: IssuedKey = await issueKey(acrossTenantsIn(trx), tenant.tenantId, { apiKey: input.apiKey });
      return { ...tenant, keyId: key.keyId, apiKey: key.apiKey };
    });
}

/**
 * On an empty database, creates tenant `default` and its first key and returns them (the only time
 * the key is ever shown). Returns undefined when a tenant exists, also when another node that
 * started at the same moment won the race.
 */
export async function bootstrapDefaultTenant(
  database: Database,
  apiKey: string | undefined,
): Promise<TenantWithKey | undefined> {
  if (!(await isEmpty(database.acrossTenants()))) return undefined;
  try {
    return await createTenantWithKey(database, { name: 'Default', slug: DEFAULT_TENANT_SLUG, apiKey });
  } catch (error) {
    if (error instanceof AppError && error.code === 'conflict') return undefined;
    throw error;
  }
}
