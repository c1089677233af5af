import { Type } from 'typebox';
import { CREATED_AND_UPDATED, fieldsOf, nullableTimestamp } from '../../db/fields.ts';
import type { Paged, Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { AppError, found, invalidField, invalidState } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { shapeOf } from '../../shared/rules-in-words.ts';
import { PageLink, type PageLinkCreate, type PageLinkUpdate, Path } from './schema.ts';
import {
  countLiveLinksOnDomain,
  findLivePageLinkByPath,
  findPageLink,
  insertPageLink,
  listPageLinks,
  type PageLinkChanges,
  type PageLinkRow,
  updatePageLink,
} from './store.ts';

const SEGMENT = /^[a-z0-9._~-]+$/;

/**
 * Fails unless an audience may be a link's target: an audience of the tenant (400 at `path`) that
 * is not archived (409). The audiences resource answers; the server wires it in (src/wiring.ts).
 */
export type TargetCheck = (db: TenantDb, audienceId: string, path: string) => Promise<void>;

/** Fails with a 400 at `path` unless `tenantDomainId` names a domain of the tenant (tenant domains answer). */
export type DomainCheck = (db: TenantDb, tenantDomainId: string, path: string) => Promise<void>;

/**
 * Where the tenant's links are served: the address a link's path follows, on the tenant's shared
 * address (`shared`) and on each of the named domains that still exists.
 */
export type LinkPrefixes = (db: TenantDb, tenantDomainIds: string[]) => Promise<Prefixes>;

interface Prefixes {
  shared: string;
  /** By tenant domain id. */
  domains: Map<string, string>;
}

/** What the page-link rules need from other resources (src/wiring.ts answers). */
export interface PageLinkNeeds {
  assertTarget: TargetCheck;
  assertDomain: DomainCheck;
  prefixes: LinkPrefixes;
}

/** The first segment of every endpoint of the pages origin: a link on a tenant domain may not take it. */
const RESERVED_SEGMENT = 'v0';

/** The one place a link's field meets its column; its url also needs the tenant's addresses (`present`). */
const linkFields = fieldsOf<PageLinkRow>()(Type.Omit(PageLink, ['url']), {
  pageLinkId: 'id',
  tenantDomainId: 'tenant_domain_id',
  path: 'path',
  // Two columns: written by `targetColumns`.
  target: (row) => ({ targetType: row.target_type, audienceId: row.audience_id }),
  ...CREATED_AND_UPDATED,
  deletedAt: { column: 'deleted_at', codec: nullableTimestamp },
});

function targetColumns(target: PageLinkCreate['target']) {
  return { target_type: target.targetType, audience_id: target.audienceId };
}

function present(row: PageLinkRow, prefixes: Prefixes): PageLink {
  const prefix = row.tenant_domain_id === null ? prefixes.shared : prefixes.domains.get(row.tenant_domain_id);
  return {
    ...linkFields.present(row),
    url: row.deleted_at === null && prefix !== undefined ? `${prefix}${row.path}` : null,
  };
}

async function presentAll(db: TenantDb, rows: PageLinkRow[], needs: PageLinkNeeds): Promise<PageLink[]> {
  const domainIds = rows.flatMap((row) => (row.tenant_domain_id === null ? [] : [row.tenant_domain_id]));
  const prefixes = await needs.prefixes(db, domainIds);
  return rows.map((row) => present(row, prefixes));
}

async function presentOne(db: TenantDb, row: PageLinkRow, needs: PageLinkNeeds): Promise<PageLink> {
  const [link] = await presentAll(db, [row], needs);
  return link as PageLink;
}

/** A link on a tenant domain may not shadow the pages origin's own endpoints (/v0/public/…). */
function assertServablePath(path: string, tenantDomainId: string | null): void {
  if (tenantDomainId !== null && path.split('/')[1] === RESERVED_SEGMENT) {
    throw invalidField(
      '/body/path',
      `may not start with /${RESERVED_SEGMENT} on a tenant domain: the pages origin's endpoints live there`,
    );
  }
}

/** The canonical form of a link path: lowercased; "/" alone or "/"-separated valid segments. */
export function canonicalPath(input: string): string {
  const path = input.toLowerCase();
  const segments = path.split('/').slice(1);
  const valid =
    path.startsWith('/') &&
    (path === '/' ||
      segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..'));
  if (!valid) {
    throw invalidField('/body/path', `must be ${shapeOf(Path)}`);
  }
  return path;
}

async function requireLink(db: TenantDb, id: string): Promise<PageLinkRow> {
  return found(await findPageLink(db, id), `Page link ${id}`);
}

/** Writes a link, turning a taken path into a 409 that names the link holding it. */
async function withFreePath<T>(
  db: TenantDb,
  address: { path: string; tenantDomainId: string | null },
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!db.errors.isUniqueViolation(error)) throw error;
    const holder = await findLivePageLinkByPath(db, address.path, address.tenantDomainId);
    const where = address.tenantDomainId === null ? '' : ` on tenant domain ${address.tenantDomainId}`;
    throw new AppError(
      'conflict',
      `The path ${address.path}${where} is taken by page link ${holder?.id ?? 'another link'}`,
    );
  }
}

export async function createPageLink(
  db: TenantDb,
  input: PageLinkCreate,
  needs: PageLinkNeeds,
): Promise<PageLink> {
  const path = canonicalPath(input.path);
  const tenantDomainId = input.tenantDomainId ?? null;
  assertServablePath(path, tenantDomainId);
  await needs.assertTarget(db, input.target.audienceId, '/body/target/audienceId');
  if (tenantDomainId !== null) await needs.assertDomain(db, tenantDomainId, '/body/tenantDomainId');
  // The addresses are read before the write: a request with an Idempotency-Key writes in a
  // transaction that holds SQLite's one connection, and the tenant's slug is read outside it.
  const prefixes = await needs.prefixes(db, tenantDomainId === null ? [] : [tenantDomainId]);
  const now = Date.now();
  const row: PageLinkRow = {
    id: newId('pagelink'),
    path,
    ...targetColumns(input.target),
    tenant_domain_id: tenantDomainId,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await withFreePath(db, { path, tenantDomainId }, () => insertPageLink(db, row));
  return present(row, prefixes);
}

/** Deleted links are still readable, with their deletedAt. */
export async function getPageLink(db: TenantDb, id: string, needs: PageLinkNeeds): Promise<PageLink> {
  return presentOne(db, await requireLink(db, id), needs);
}

export async function updatePageLinkFields(
  db: TenantDb,
  id: string,
  input: PageLinkUpdate,
  needs: PageLinkNeeds,
): Promise<PageLink> {
  const current = await requireLink(db, id);
  if (current.deleted_at !== null) throw invalidState(`Page link ${id} is deleted`);
  const { target, tenantDomainId } = input;
  const path = input.path === undefined ? undefined : canonicalPath(input.path);
  if (target) await needs.assertTarget(db, target.audienceId, '/body/target/audienceId');
  if (tenantDomainId) await needs.assertDomain(db, tenantDomainId, '/body/tenantDomainId');
  const moved: Pick<PageLinkUpdate, 'path' | 'tenantDomainId'> = { path, tenantDomainId };
  const changes: PageLinkChanges = {
    ...linkFields.write(moved),
    ...(target && targetColumns(target)),
    updated_at: Date.now(),
  };
  const address = {
    path: changes.path ?? current.path,
    tenantDomainId:
      changes.tenant_domain_id === undefined ? current.tenant_domain_id : changes.tenant_domain_id,
  };
  assertServablePath(address.path, address.tenantDomainId);
  // The transaction inside: on PostgreSQL a failed statement ends it, and the path's holder is
  // looked up after.
  const updated = await withFreePath(db, address, () =>
    db.transaction(async (tx) => {
      await updatePageLink(tx, id, changes);
      return requireLink(tx, id);
    }),
  );
  return presentOne(db, updated, needs);
}

/** Soft delete: the link stops serving and frees its path; deleting again is unchanged. */
export async function deletePageLink(db: TenantDb, id: string, needs: PageLinkNeeds): Promise<PageLink> {
  const current = await requireLink(db, id);
  if (current.deleted_at !== null) return presentOne(db, current, needs);
  const deleted = await db.transaction(async (tx) => {
    const now = Date.now();
    await updatePageLink(tx, id, { deleted_at: now, updated_at: now });
    return requireLink(tx, id);
  });
  return presentOne(db, deleted, needs);
}

export async function listLivePageLinks(
  db: TenantDb,
  filter: { audienceId?: string },
  page: Paging,
  needs: PageLinkNeeds,
): Promise<Paged<PageLink>> {
  const rows = await listPageLinks(db, filter, page);
  return { ...rows, items: await presentAll(db, rows.items, needs) };
}

/** The live link at a path of a domain (null: the tenant's shared address), for serving. */
export async function liveLinkAt(
  db: TenantDb,
  path: string,
  tenantDomainId: string | null,
): Promise<{ pageLinkId: string; audienceId: string } | undefined> {
  const row = await findLivePageLinkByPath(db, path.toLowerCase(), tenantDomainId);
  return row ? { pageLinkId: row.id, audienceId: row.audience_id } : undefined;
}

/** How many live links are served on a tenant domain. */
export function linksOnDomain(db: TenantDb, tenantDomainId: string): Promise<number> {
  return countLiveLinksOnDomain(db, tenantDomainId);
}
