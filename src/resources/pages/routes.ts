import { paginate } from '../../http/pagination.ts';
import { DEFAULT_PAGE_SIZE, EmptyBody } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import type { ImageChecks } from './references.ts';
import {
  Page,
  PageCreate,
  PageList,
  PageListQuery,
  PageParams,
  PageSearchList,
  PageSearchQuery,
  PageUpdate,
} from './schema.ts';
import {
  archivePage,
  createPage,
  deletePage,
  getPage,
  listAllPages,
  publishPage,
  restorePage,
  searchPageItems,
  updatePageFields,
} from './service.ts';

const tags = ['Pages'];

/** The page endpoints; `images` checks the images that widgets name. */
export async function pageRoutes(api: Api, { images }: { images: ImageChecks }): Promise<void> {
  api.post(
    '/v0/pages',
    {
      schema: {
        tags,
        operationId: 'createPage',
        summary: 'Create a page',
        description:
          'Created as draft. `title` is metadata.title when given, else the name. Every action needs buttonTitle (1-255) and actionType (1-64); actionId is assigned when omitted and unique within the page; headerActionId must name one of the actions.',
        body: PageCreate,
        response: { 201: Page },
      },
    },
    async (request, reply) => {
      const page = await createPage(request.tenantDb, request.body, images);
      return reply.code(201).header('Location', `/v0/pages/${page.pageId}`).send(page);
    },
  );

  api.get(
    '/v0/pages',
    {
      schema: {
        tags,
        operationId: 'listPages',
        summary: 'List pages',
        description: 'Newest first; deleted pages are left out. `query` matches name and title.',
        querystring: PageListQuery,
        response: { 200: PageList },
      },
    },
    (request) => {
      const filters = { query: request.query.query || undefined, status: request.query.status };
      return paginate(request, filters, (page) => listAllPages(request.tenantDb, filters, page));
    },
  );

  api.get(
    '/v0/pages/search',
    {
      schema: {
        tags,
        operationId: 'searchPages',
        summary: 'Search pages',
        description:
          'The first `limit` pages whose name or title contains `query`, newest first; deleted pages are left out. No cursor: `nextCursor` is always null. `totalCount` is null when more than 10,000 pages match.',
        querystring: PageSearchQuery,
        response: { 200: PageSearchList },
      },
    },
    (request) =>
      searchPageItems(
        request.tenantDb,
        request.query.query || undefined,
        request.query.limit ?? DEFAULT_PAGE_SIZE,
      ),
  );

  api.get(
    '/v0/pages/:page_id',
    {
      schema: {
        tags,
        operationId: 'getPage',
        summary: 'Get a page',
        description: 'Deleted pages are still readable.',
        params: PageParams,
        response: { 200: Page },
      },
    },
    (request) => getPage(request.tenantDb, request.params.page_id),
  );

  api.patch(
    '/v0/pages/:page_id',
    {
      schema: {
        tags,
        operationId: 'updatePage',
        summary: 'Update a page',
        description:
          'Takes the create fields; omitted fields stay, null clears footerLinks, headerActionId and metadata. A deleted page is 409.',
        params: PageParams,
        body: PageUpdate,
        response: { 200: Page },
      },
    },
    (request) => updatePageFields(request.tenantDb, request.params.page_id, request.body, images),
  );

  const actions = [
    [
      'publish',
      'Publish a page',
      'draft → published. Published again: unchanged. Archived or deleted: 409.',
      publishPage,
    ],
    [
      'archive',
      'Archive a page',
      '→ archived with archivedAt. Archived again: unchanged. Deleted: 409.',
      archivePage,
    ],
    [
      'restore',
      'Restore a page',
      'Clears archivedAt and deletedAt and sets status draft; a page neither archived nor deleted is returned unchanged.',
      restorePage,
    ],
  ] as const;
  for (const [action, summary, description, run] of actions) {
    api.post(
      `/v0/pages/:page_id/${action}`,
      {
        schema: {
          operationId: `${action}Page`,
          tags,
          summary,
          description,
          params: PageParams,
          body: EmptyBody,
          response: { 200: Page },
        },
      },
      (request) => run(request.tenantDb, request.params.page_id),
    );
  }

  api.delete(
    '/v0/pages/:page_id',
    {
      schema: {
        tags,
        operationId: 'deletePage',
        summary: 'Delete a page',
        description:
          'Soft delete: sets deletedAt; the page leaves lists and search but stays readable by id and restorable for 30 days, then it is erased. Deleting again: unchanged.',
        params: PageParams,
        response: { 200: Page },
      },
    },
    (request) => deletePage(request.tenantDb, request.params.page_id),
  );
}
