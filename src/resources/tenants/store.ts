import type { Kysely, Selectable } from 'kysely';
import type { TenantsTable, TenantsTables } from './tables.ts';

export type TenantRow = Selectable<TenantsTable>;

export function insertTenant(db: Kysely<TenantsTables>, row: TenantRow): Promise<unknown> {
  return db.insertInto('tenants').values(row).execute();
}

export function findTenant(db: Kysely<TenantsTables>, idOrSlug: string): Promise<TenantRow | undefined> {
  return db
    .selectFrom('tenants')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
}

export async function hasAnyTenant(db: Kysely<TenantsTables>): Promise<boolean> {
  return (await db.selectFrom('tenants').select('id').limit(1).executeTakeFirst()) !== undefined;
}
