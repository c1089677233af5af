import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import { AppError, invalidField, invalidState, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { toNullableTimestamp, toTimestamp } from '../../shared/time.ts';
import type { PageLink, PageLinkCreate, PageLinkUpdate } from './schema.ts';
import {
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

function present(row: PageLinkRow): PageLink {
  return {
    pageLinkId: row.id,
    tenantDomainId: row.tenant_domain_id,
    path: row.path,
    target: { targetType: row.target_type, audienceId: row.audience_id },
    createdAt: toTimestamp(row.created_at),
    updatedAt: toTimestamp(row.updated_at),
    deletedAt: toNullableTimestamp(row.deleted_at),
  };
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
    throw invalidField(
      '/body/path',
      'must start with / and be made of segments of a-z, 0-9 and . _ ~ - (no empty, "." or ".." segments)',
    );
  }
  return path;
}

async function requireLink(db: TenantDb, id: string): Promise<PageLinkRow> {
  const row = await findPageLink(db, id);
  if (!row) throw notFound(`Page link ${id}`);
  return row;
}

/** Writes a link, turning a taken path into a 409 that names the link holding it. */
async function withFreePath(db: TenantDb, path: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!db.dialect.isUniqueViolation(error)) throw error;
    const holder = await findLivePageLinkByPath(db, path);
    throw new AppError('conflict', `The path ${path} is taken by page link ${holder?.id ?? 'another link'}`);
  }
}

export async function createPageLink(
  db: TenantDb,
  input: PageLinkCreate,
  assertTarget: TargetCheck,
): Promise<PageLink> {
  const path = canonicalPath(input.path);
  await assertTarget(db, input.target.audienceId, '/body/target/audienceId');
  const now = Date.now();
  const row: PageLinkRow = {
    id: newId('pagelink'),
    path,
    target_type: input.target.targetType,
    audience_id: input.target.audienceId,
    tenant_domain_id: input.tenantDomainId ?? null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await withFreePath(db, path, () => insertPageLink(db, row));
  return present(row);
}

/** Deleted links are still readable, with their deletedAt. */
export async function getPageLink(db: TenantDb, id: string): Promise<PageLink> {
  return present(await requireLink(db, id));
}

export async function updatePageLinkFields(
  db: TenantDb,
  id: string,
  input: PageLinkUpdate,
  assertTarget: TargetCheck,
): Promise<PageLink> {
  const current = await requireLink(db, id);
  if (current.deleted_at !== null) throw invalidState(`Page link ${id} is deleted`);
  const changes: PageLinkChanges = { updated_at: Date.now() };
  if (input.path !== undefined) changes.path = canonicalPath(input.path);
  if (input.target !== undefined) {
    await assertTarget(db, input.target.audienceId, '/body/target/audienceId');
    changes.target_type = input.target.targetType;
    changes.audience_id = input.target.audienceId;
  }
  if (input.tenantDomainId !== undefined) changes.tenant_domain_id = input.tenantDomainId;
  await withFreePath(db, changes.path ?? current.path, () => updatePageLink(db, id, changes));
  return getPageLink(db, id);
}

/** Soft delete: the link stops serving and frees its path; deleting again is unchanged. */
export async function deletePageLink(db: TenantDb, id: string): Promise<PageLink> {
  const current = await requireLink(db, id);
  if (current.deleted_at === null) {
    const now = Date.now();
    await updatePageLink(db, id, { deleted_at: now, updated_at: now });
  }
  return getPageLink(db, id);
}

export async function listLivePageLinks(
  db: TenantDb,
  filter: { audienceId?: string },
  page: Paging,
): Promise<Paged<PageLink>> {
  return mapPaged(await listPageLinks(db, filter, page), present);
}

/** The live link at a path, for serving. */
export async function liveLinkAt(db: TenantDb, path: string): Promise<PageLink | undefined> {
  const row = await findLivePageLinkByPath(db, path.toLowerCase());
  return row ? present(row) : undefined;
}
