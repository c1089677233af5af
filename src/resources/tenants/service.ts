import type { Kysely } from 'kysely';
import type { ErrorClassifier } from '../../db/engine.ts';
import type { Caller } from '../../http/auth.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { slugOf } from '../../shared/slug.ts';
import { toTimestamp } from '../../shared/time.ts';
import type { CurrentTenant } from './schema.ts';
import { findTenant, hasAnyTenant, insertTenant, type TenantRow } from './store.ts';
import type { TenantsTables } from './tables.ts';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_SLUG = 64;
export const DEFAULT_TENANT_SLUG = 'default';

export interface Tenant {
  tenantId: string;
  slug: string;
  name: string;
  createdAt: string;
}

function present(row: TenantRow): Tenant {
  return { tenantId: row.id, slug: row.slug, name: row.name, createdAt: toTimestamp(row.created_at) };
}

/** Creates a tenant; its slug is made from the name unless given. 409 when the slug is taken. */
export async function createTenant(
  db: Kysely<TenantsTables>,
  errors: ErrorClassifier,
  input: { name: string; slug?: string },
): Promise<Tenant> {
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'A tenant needs a non-empty name');
  const slug = input.slug ?? slugOf(name, MAX_SLUG);
  if (!SLUG.test(slug)) {
    throw new AppError(
      'validation_failed',
      `Tenant slug "${slug}" must be 1-64 lowercase letters, digits or inner dashes`,
    );
  }
  const row: TenantRow = { id: newId('tenant'), slug, name, created_at: Date.now() };
  try {
    await insertTenant(db, row);
  } catch (error) {
    if (errors.isUniqueViolation(error)) throw new AppError('conflict', `Tenant slug "${slug}" is taken`);
    throw error;
  }
  return present(row);
}

export async function getTenant(db: Kysely<TenantsTables>, idOrSlug: string): Promise<Tenant> {
  const row = await findTenant(db, idOrSlug);
  if (!row) throw notFound(`Tenant "${idOrSlug}"`);
  return present(row);
}

/** The tenant and key of an authenticated caller, and where the tenant's pages start (`pagesBase`). */
export async function currentTenant(
  db: Kysely<TenantsTables>,
  caller: Caller | null,
  pagesBase: (slug: string) => string,
): Promise<CurrentTenant> {
  if (!caller) throw new AppError('missing_api_key', 'This endpoint needs an API key');
  const { tenantId, name, slug } = await getTenant(db, caller.tenantId);
  return {
    tenantId,
    name,
    slug,
    pagesUrl: pagesBase(slug),
    key: { keyId: caller.keyId, readOnly: caller.readOnly },
  };
}

/** Whether the database holds no tenant yet: the first start creates one. */
export async function isEmpty(db: Kysely<TenantsTables>): Promise<boolean> {
  return !(await hasAnyTenant(db));
}
