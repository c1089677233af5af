import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect.ts';
import type { DB } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { toTimestamp } from '../../time.ts';
import { type IssuedKey, issueKey } from '../api-keys/service.ts';
import { findTenant, hasAnyTenant, insertTenant, type TenantRow } from './store.ts';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const DEFAULT_TENANT_SLUG = 'default';

export interface Tenant {
  tenantId: string;
  slug: string;
  name: string;
  createdAt: string;
}

export type TenantWithKey = Tenant & { keyId: string; apiKey: string };

function present(row: TenantRow): Tenant {
  return { tenantId: row.id, slug: row.slug, name: row.name, createdAt: toTimestamp(row.created_at) };
}

function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** Creates a tenant together with its first API key, in one transaction. */
export async function createTenant(
  db: Kysely<DB>,
  dialect: Dialect,
  input: { name: string; slug?: string; apiKey?: string },
): Promise<TenantWithKey> {
  const name = input.name.trim();
  if (!name) throw new AppError('validation_failed', 'A tenant needs a non-empty name');
  const slug = input.slug ?? slugFromName(name);
  if (!SLUG.test(slug)) {
    throw new AppError(
      'validation_failed',
      `Tenant slug "${slug}" must be 1-64 lowercase letters, digits or inner dashes`,
    );
  }
  const row: TenantRow = { id: newId('tenant'), slug, name, created_at: Date.now() };
  try {
    return await db.transaction().execute(async (trx) => {
      await insertTenant(trx, row);
      const key: IssuedKey = await issueKey(trx, row.id, { apiKey: input.apiKey });
      return { ...present(row), keyId: key.keyId, apiKey: key.apiKey };
    });
  } catch (error) {
    if (dialect.isUniqueViolation(error)) throw new AppError('conflict', `Tenant slug "${slug}" is taken`);
    throw error;
  }
}

export async function getTenant(db: Kysely<DB>, idOrSlug: string): Promise<Tenant> {
  const row = await findTenant(db, idOrSlug);
  if (!row) throw notFound(`Tenant "${idOrSlug}"`);
  return present(row);
}

/**
 * On an empty database, creates tenant `default` and its first key and returns them (the only time
 * the key is ever shown). Returns undefined when a tenant exists, also when another node that
 * started at the same moment won the race.
 */
export async function bootstrapDefaultTenant(
  db: Kysely<DB>,
  dialect: Dialect,
  apiKey: string | undefined,
): Promise<TenantWithKey | undefined> {
  if (await hasAnyTenant(db)) return undefined;
  try {
    return await createTenant(db, dialect, { name: 'Default', slug: DEFAULT_TENANT_SLUG, apiKey });
  } catch (error) {
    if (error instanceof AppError && error.code === 'conflict') return undefined;
    throw error;
  }
}
