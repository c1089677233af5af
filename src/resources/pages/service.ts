import { Type } from 'typebox';
import { CREATED_AND_UPDATED, fieldsOf, json, nullableTimestamp } from '../../db/fields.ts';
import { mapPaged, type Paged, type Paging } from '../../db/paging.ts';
import type { TenantDb } from '../../db/tenant-db.ts';
import type { PageMetadata } from '../../http/page-metadata.ts';
import { found, invalidField, invalidState } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { assertImageReferences, type ImageChecks } from './references.ts';
import {
  type Action,
  type ActionCardWidget,
  type FooterLinkGroup,
  Page,
  type PageCreate,
  type PageSearchItem,
  type PageUpdate,
  type Script,
} from './schema.ts';
import {
  findPage,
  findPages,
  insertPage,
  listPages,
  type NewPageRow,
  type PageChanges,
  type PageFilter,
  type PageRow,
  searchPages,
  updatePage,
} from './store.ts';

type Content = Pick<
  Page,
  'actions' | 'actionCardWidgets' | 'scripts' | 'footerLinks' | 'headerActionId' | 'metadata' | 'name'
>;

function parse<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

/**
 * The one place a page's field meets its column. The optional fields, which a page without them
 * leaves out rather than shows as null, are presented by `presentPage`; the content is written
 * whole by `contentColumns`.
 */
const pageFields = fieldsOf<PageRow>()(Type.Omit(Page, ['footerLinks', 'headerActionId', 'metadata']), {
  pageId: 'id',
  name: 'name',
  title: 'title',
  pageContext: 'page_context',
  pageType: 'page_type',
  status: 'status',
  brandId: 'brand_id',
  actions: { column: 'actions', codec: json<Action[]>() },
  actionCardWidgets: { column: 'action_card_widgets', codec: json<ActionCardWidget[]>() },
  scripts: { column: 'scripts', codec: json<Script[]>() },
  // PostgreSQL may answer the count as a string.
  audiencesCount: (row) => Number(row.audiences_count),
  ...CREATED_AND_UPDATED,
  archivedAt: { column: 'archived_at', codec: nullableTimestamp },
  deletedAt: { column: 'deleted_at', codec: nullableTimestamp },
});

export function presentPage(row: PageRow): Page {
  const footerLinks = parse<FooterLinkGroup[]>(row.footer_links);
  const metadata = parse<PageMetadata>(row.metadata);
  return {
    ...pageFields.present(row),
    ...(footerLinks ? { footerLinks } : {}),
    ...(row.header_action_id ? { headerActionId: row.header_action_id } : {}),
    ...(metadata ? { metadata } : {}),
  };
}

function normalizeActions(input: PageCreate['actions']): Action[] {
  const actions = input.map((action, index) => ({
    actionId: action.actionId ?? newId('action'),
    actionIndex: index,
    purpose: action.purpose ?? '',
    buttonTitle: action.buttonTitle,
    actionType: action.actionType,
    url: action.url ?? '',
  }));
  const seen = new Set<string>();
  actions.forEach((action, index) => {
    if (seen.has(action.actionId)) {
      throw invalidField(
        `/body/actions/${index}/actionId`,
        `repeats actionId "${action.actionId}"; ids are unique per page`,
      );
    }
    seen.add(action.actionId);
  });
  return actions;
}

function normalizeWidgets(input: PageCreate['actionCardWidgets']): ActionCardWidget[] {
  return input.map((widget) => ({
    type: widget.type,
    title: widget.title ?? '',
    logos: (widget.logos ?? []).map(({ image }) => ({
      image: {
        altText: image.altText ?? '',
        url: image.url ?? '',
        fileId: image.fileId ?? '',
        assetId: image.assetId ?? '',
      },
    })),
  }));
}

function normalizeScripts(input: PageCreate['scripts']): Script[] {
  return input.map((script) => ({
    content: script.content,
    enabled: script.enabled ?? true,
    name: script.name ?? '',
    description: script.description ?? '',
  }));
}

function normalizeFooterLinks(input: NonNullable<PageCreate['footerLinks']>): FooterLinkGroup[] {
  return input.map((group, index) => ({
    id: group.id ?? `group-${index + 1}`,
    title: group.title ?? '',
    links: (group.links ?? []).map((link, position) => ({
      id: link.id ?? `link-${position + 1}`,
      text: link.text,
      url: link.url,
    })),
  }));
}

function assertHeaderAction(actions: Action[], headerActionId: string | undefined): void {
  if (headerActionId !== undefined && !actions.some((action) => action.actionId === headerActionId)) {
    throw invalidField(
      '/body/headerActionId',
      `must be the actionId of one of the page's actions; "${headerActionId}" is not`,
    );
  }
}

/** The page's title follows its metadata title, else its name. */
function titleOf(content: Pick<Content, 'metadata' | 'name'>): string {
  return content.metadata?.title || content.name;
}

function contentColumns(content: Content) {
  return {
    name: content.name,
    title: titleOf(content),
    actions: JSON.stringify(content.actions),
    action_card_widgets: JSON.stringify(content.actionCardWidgets),
    scripts: JSON.stringify(content.scripts),
    footer_links: content.footerLinks ? JSON.stringify(content.footerLinks) : null,
    header_action_id: content.headerActionId ?? null,
    metadata: content.metadata ? JSON.stringify(content.metadata) : null,
  };
}

async function requirePage(db: TenantDb, id: string): Promise<PageRow> {
  return found(await findPage(db, id), `Page ${id}`);
}

export async function createPage(db: TenantDb, input: PageCreate, images: ImageChecks): Promise<Page> {
  const content: Content = {
    name: input.name,
    actions: normalizeActions(input.actions),
    actionCardWidgets: normalizeWidgets(input.actionCardWidgets),
    scripts: normalizeScripts(input.scripts),
    footerLinks: input.footerLinks ? normalizeFooterLinks(input.footerLinks) : undefined,
    headerActionId: input.headerActionId,
    metadata: input.metadata,
  };
  assertHeaderAction(content.actions, content.headerActionId);
  await assertImageReferences(db, content.actionCardWidgets, images);
  const now = Date.now();
  const row: NewPageRow = {
    id: newId('page'),
    ...contentColumns(content),
    page_context: input.pageContext,
    page_type: input.pageType ?? 'inbound',
    status: 'draft',
    brand_id: input.brandId,
    created_at: now,
    updated_at: now,
    archived_at: null,
    deleted_at: null,
  };
  await insertPage(db, row);
  return getPage(db, row.id);
}

export async function getPage(db: TenantDb, id: string): Promise<Page> {
  return presentPage(await requirePage(db, id));
}

/** The pages of these ids that the tenant has, deleted ones included, by id. */
export async function pagesByIds(db: TenantDb, ids: string[]): Promise<Map<string, Page>> {
  const rows = await findPages(db, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, presentPage(row)]));
}

/** Applies the fields given; `null` clears the optional ones. A deleted page cannot change. */
export async function updatePageFields(
  db: TenantDb,
  id: string,
  input: PageUpdate,
  images: ImageChecks,
): Promise<Page> {
  const current = presentPage(await requirePage(db, id));
  if (current.deletedAt !== null) throw invalidState(`Page ${id} is deleted; restore it before changing it`);
  const content: Content = {
    name: input.name ?? current.name,
    actions: input.actions ? normalizeActions(input.actions) : current.actions,
    actionCardWidgets: input.actionCardWidgets
      ? normalizeWidgets(input.actionCardWidgets)
      : current.actionCardWidgets,
    scripts: input.scripts ? normalizeScripts(input.scripts) : current.scripts,
    footerLinks:
      input.footerLinks === undefined
        ? current.footerLinks
        : input.footerLinks === null
          ? undefined
          : normalizeFooterLinks(input.footerLinks),
    headerActionId:
      input.headerActionId === undefined ? current.headerActionId : (input.headerActionId ?? undefined),
    metadata: input.metadata === undefined ? current.metadata : (input.metadata ?? undefined),
  };
  assertHeaderAction(content.actions, content.headerActionId);
  if (input.actionCardWidgets) await assertImageReferences(db, content.actionCardWidgets, images);
  const { pageContext, pageType, brandId } = input;
  const fields: Pick<PageUpdate, 'pageContext' | 'pageType' | 'brandId'> = { pageContext, pageType, brandId };
  const changes: PageChanges = {
    ...contentColumns(content),
    ...pageFields.write(fields),
    updated_at: Date.now(),
  };
  return updatedPage(db, id, changes);
}

/** Applies `changes` and answers the page as they left it (decisions §2: a write answers what it did). */
function updatedPage(db: TenantDb, id: string, changes: PageChanges): Promise<Page> {
  return db.transaction(async (tx) => {
    await updatePage(tx, id, changes);
    return getPage(tx, id);
  });
}

/** A state change: unchanged (and 200) when the page is already there, 409 when its state forbids it. */
async function transition(
  db: TenantDb,
  id: string,
  decide: (page: PageRow, now: number) => PageChanges | 'unchanged',
): Promise<Page> {
  const page = await requirePage(db, id);
  const now = Date.now();
  const changes = decide(page, now);
  if (changes === 'unchanged') return presentPage(page);
  return updatedPage(db, id, { ...changes, updated_at: now });
}

function stateOf(page: PageRow): string {
  return page.deleted_at !== null ? 'deleted' : page.status;
}

export function publishPage(db: TenantDb, id: string): Promise<Page> {
  return transition(db, id, (page) => {
    if (page.deleted_at !== null || page.status === 'archived') {
      throw invalidState(`Page ${id} is ${stateOf(page)}; restore it before publishing`);
    }
    return page.status === 'published' ? 'unchanged' : { status: 'published' };
  });
}

export function archivePage(db: TenantDb, id: string): Promise<Page> {
  return transition(db, id, (page, now) => {
    if (page.deleted_at !== null) throw invalidState(`Page ${id} is deleted; restore it before archiving`);
    return page.status === 'archived' ? 'unchanged' : { status: 'archived', archived_at: now };
  });
}

export function deletePage(db: TenantDb, id: string): Promise<Page> {
  return transition(db, id, (page, now) => (page.deleted_at !== null ? 'unchanged' : { deleted_at: now }));
}

export function restorePage(db: TenantDb, id: string): Promise<Page> {
  return transition(db, id, (page) =>
    page.deleted_at === null && page.archived_at === null && page.status !== 'archived'
      ? 'unchanged'
      : { status: 'draft', archived_at: null, deleted_at: null },
  );
}

export async function listAllPages(db: TenantDb, filter: PageFilter, page: Paging): Promise<Paged<Page>> {
  return mapPaged(await listPages(db, filter, page), presentPage);
}

export async function searchPageItems(
  db: TenantDb,
  query: string | undefined,
  limit: number,
): Promise<{ hasMore: boolean; items: PageSearchItem[]; nextCursor: null; totalCount: number | null }> {
  const { rows, total } = await searchPages(db, query, limit);
  return {
    hasMore: rows.length > limit,
    items: rows
      .slice(0, limit)
      .map((row) => ({ pageId: row.id, name: row.name, audiencesCount: Number(row.audiences_count) })),
    nextCursor: null,
    totalCount: total,
  };
}

/** Fails unless the page exists, is not deleted, and is not archived: new audiences need a live page. */
export async function requireLivePage(db: TenantDb, id: string): Promise<Page> {
  const page = await requirePage(db, id);
  if (page.deleted_at !== null || page.status === 'archived') {
    throw invalidState(`Page ${id} is ${stateOf(page)}`);
  }
  return presentPage(page);
}
