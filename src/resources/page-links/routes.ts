import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import {
  PageLink,
  PageLinkCreate,
  PageLinkList,
  PageLinkListQuery,
  PageLinkParams,
  PageLinkUpdate,
} from './schema.ts';
import {
  createPageLink,
  deletePageLink,
  getPageLink,
  listLivePageLinks,
  type TargetCheck,
  updatePageLinkFields,
} from './service.ts';

const tags = ['Page links'];

/** The page link endpoints; `assertTarget` checks the audience a link targets. */
export async function pageLinkRoutes(
  api: Api,
  { assertTarget }: { assertTarget: TargetCheck },
): Promise<void> {
  api.post(
    '/v0/page_links',
    {
      schema: {
        tags,
        operationId: 'createPageLink',
        summary: 'Create a page link',
        description:
          'Serves an audience of a page at a path. The path is lowercased and unique per tenant among live links (409 when taken). The audience must exist (400) and not be archived (409).',
        body: PageLinkCreate,
        response: { 201: PageLink },
      },
    },
    async (request, reply) => {
      const link = await createPageLink(request.tenantDb, request.body, assertTarget);
      return reply.code(201).header('Location', `/v0/page_links/${link.pageLinkId}`).send(link);
    },
  );

  api.get(
    '/v0/page_links',
    {
      schema: {
        tags,
        operationId: 'listPageLinks',
        summary: 'List page links',
        description: 'Live links, newest first; `audienceId` keeps the links of one audience.',
        querystring: PageLinkListQuery,
        response: { 200: PageLinkList },
      },
    },
    (request) => {
      const filters = { audienceId: request.query.audienceId };
      return paginate(request, filters, (page) => listLivePageLinks(request.tenantDb, filters, page));
    },
  );

  api.get(
    '/v0/page_links/:page_link_id',
    {
      schema: {
        tags,
        operationId: 'getPageLink',
        summary: 'Get a page link',
        description: 'Deleted links too, with their deletedAt.',
        params: PageLinkParams,
        response: { 200: PageLink },
      },
    },
    (request) => getPageLink(request.tenantDb, request.params.page_link_id),
  );

  api.patch(
    '/v0/page_links/:page_link_id',
    {
      schema: {
        tags,
        operationId: 'updatePageLink',
        summary: 'Update a page link',
        description: 'Omitted fields stay. The same rules as on create; a deleted link is 409.',
        params: PageLinkParams,
        body: PageLinkUpdate,
        response: { 200: PageLink },
      },
    },
    (request) =>
      updatePageLinkFields(request.tenantDb, request.params.page_link_id, request.body, assertTarget),
  );

  api.delete(
    '/v0/page_links/:page_link_id',
    {
      schema: {
        tags,
        operationId: 'deletePageLink',
        summary: 'Delete a page link',
        description: 'Soft delete: sets deletedAt, stops serving, frees the path. Deleting again: unchanged.',
        params: PageLinkParams,
        response: { 200: PageLink },
      },
    },
    (request) => deletePageLink(request.tenantDb, request.params.page_link_id),
  );
}
