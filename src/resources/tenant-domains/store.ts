import type { Kysely, Selectable } from 'kysely';
import { descendingAfter, type Paged, type Paging, pagedOf } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { TenantDomainsTable, TenantDomainsTables } from './tables.ts';

export type TenantDomainRow = Omit<Selectable<TenantDomainsTable>, 'tenant_id'>;

const COLUMNS = ['id', 'hostname', 'created_at', 'updated_at'] as const;

export async function insertTenantDomain(
  db: TenantDb<TenantDomainsTables>,
  row: TenantDomainRow,
): Promise<void> {
  await db.insertInto('tenant_domains', row).execute();
}

export function findTenantDomain(
  db: TenantDb<TenantDomainsTables>,
  id: string,
): Promise<TenantDomainRow | undefined> {
  return db.selectFrom('tenant_domains').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function findTenantDomains(
  db: TenantDb<TenantDomainsTables>,
  ids: string[],
): Promise<TenantDomainRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('tenant_domains').select(COLUMNS).where('id', 'in', ids).execute();
}

export async function deleteTenantDomainRow(db: TenantDb<TenantDomainsTables>, id: string): Promise<void> {
  await db.deleteFrom('tenant_domains').where('id', '=', id).execute();
}

export async function listTenantDomains(
  db: TenantDb<TenantDomainsTables>,
  page: Paging,
): Promise<Paged<TenantDomainRow>> {
  const all = db.selectFrom('tenant_domains');
  const [rows, total] = await Promise.all([
    descendingAfter(all.select(COLUMNS), 'id', page),
    db.countRows(all),
  ]);
  return pagedOf(rows, page, (row) => [row.id], total);
}

/** Whichever tenant holds `hostname`: hostnames are unique across the service. */
export function findHeldHostname(
  db: Kysely<TenantDomainsTables>,
  hostname: string,
): Promise<Pick<TenantDomainsTable, 'id' | 'tenant_id'> | undefined> {
  return db
    .selectFrom('tenant_domains')
    .select(['id', 'tenant_id'])
    .where('hostname', '=', hostname)
    .executeTakeFirst();
}
