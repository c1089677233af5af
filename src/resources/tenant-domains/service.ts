import type { Kysely } from 'kysely';
import { CREATED_AND_UPDATED, fieldsOf } from '../../db/fields.ts';
import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { AppError, found, invalidField, invalidState, notFound } from '../../shared/errors.ts';
import { hostnameOf } from '../../shared/hostnames.ts';
import { newId } from '../../shared/ids.ts';
import { TenantDomain, TenantDomainCreate } from './schema.ts';
import {
  deleteTenantDomainRow,
  findHeldHostname,
  findTenantDomain,
  findTenantDomains,
  insertTenantDomain,
  listTenantDomains,
  type TenantDomainRow,
} from './store.ts';
import type { TenantDomainsTables } from './tables.ts';

/** How many live page links are served on a domain. The page-links resource answers (src/wiring.ts). */
export type LinksOnDomain = (db: TenantDb, tenantDomainId: string) => Promise<number>;

/** Whether a hostname is one of Tailor's own (its API's or its pages origin's): no tenant may take it. */
export type ReservedHostname = (hostname: string) => boolean;

/** The tenant that holds a hostname, and the domain it holds it as. */
export interface HeldDomain {
  tenantId: string;
  tenantDomainId: string;
}

/** The one place a tenant domain's field meets its column. */
const domainFields = fieldsOf<TenantDomainRow>()(TenantDomain, {
  tenantDomainId: 'id',
  hostname: 'hostname',
  ...CREATED_AND_UPDATED,
});

const present = domainFields.present;

async function requireDomain(db: TenantDb, id: string): Promise<TenantDomainRow> {
  return found(await findTenantDomain(db, id), `Tenant domain ${id}`);
}

/**
 * Adds a hostname to the tenant. Taken by this tenant or another, the answer is the same 409, so
 * that nobody learns which hostnames other tenants hold (the public check tells only that one is).
 */
export async function createTenantDomain(
  db: TenantDb,
  input: TenantDomainCreate,
  reserved: ReservedHostname,
): Promise<TenantDomain> {
  if (reserved(input.hostname)) {
    throw invalidField('/body/hostname', "is one of Tailor's own hosts and cannot be a tenant domain");
  }
  const now = Date.now();
  const row: TenantDomainRow = {
    ...domainFields.columns(TenantDomainCreate, input),
    id: newId('domain'),
    created_at: now,
    updated_at: now,
  };
  try {
    await insertTenantDomain(db, row);
  } catch (error) {
    if (!db.errors.isUniqueViolation(error)) throw error;
    throw new AppError('conflict', `The hostname ${input.hostname} is already held`);
  }
  return present(row);
}

export async function getTenantDomain(db: TenantDb, id: string): Promise<TenantDomain> {
  return present(await requireDomain(db, id));
}

export async function listDomains(db: TenantDb, page: Paging): Promise<Paged<TenantDomain>> {
  return mapPaged(await listTenantDomains(db, page), present);
}

/** Gives a hostname up; refused (409) while a live link is served on it. Answers what was deleted. */
export async function deleteTenantDomain(
  db: TenantDb,
  id: string,
  linksOn: LinksOnDomain,
): Promise<TenantDomain> {
  return db.transaction(async (tx) => {
    const row = await requireDomain(tx, id);
    const links = await linksOn(tx, id);
    if (links > 0) {
      throw invalidState(
        `Tenant domain ${id} serves ${links} live page link${links === 1 ? '' : 's'}; delete or move ${links === 1 ? 'it' : 'them'} first`,
      );
    }
    await deleteTenantDomainRow(tx, id);
    return present(row);
  });
}

/** Fails with a 400 at `path` unless `id` names a domain of the tenant. */
export async function assertTenantDomain(db: TenantDb, id: string, path: string): Promise<void> {
  if (!(await findTenantDomain(db, id)))
    throw invalidField(path, `names no tenant domain of this tenant (${id})`);
}

/** The hostname of each of the tenant's domains named, for building links' addresses: one query. */
export async function hostnamesOf(db: TenantDb, ids: string[]): Promise<Map<string, string>> {
  const rows = await findTenantDomains(db, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, row.hostname]));
}

/**
 * Who holds `hostname` (as hostnameOf spells it), across every tenant: for routing a request by its
 * Host, and the TLS check.
 */
export async function heldDomain(
  db: Kysely<TenantDomainsTables>,
  hostname: string,
): Promise<HeldDomain | undefined> {
  const row = await findHeldHostname(db, hostname);
  return row ? { tenantId: row.tenant_id, tenantDomainId: row.id } : undefined;
}

/**
 * The public check of a name a TLS proxy asks about: the hostname it names, spelled as routing
 * reads a Host (hostnameOf), when a tenant holds it; 404 otherwise.
 */
export async function checkHostname(
  db: Kysely<TenantDomainsTables>,
  asked: string,
): Promise<{ hostname: string }> {
  const hostname = hostnameOf(asked);
  if (!(await heldDomain(db, hostname))) throw notFound(`Hostname ${hostname}`);
  return { hostname };
}
