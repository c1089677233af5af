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
  type PageLinkNeeds,
  updatePageLinkFields,
} from './service.ts';

const tags = ['Page links'];

/** The page link endpoints; `needs` checks a link's audience and domain and tells its address. */
export async function pageLinkRoutes(api: Api, needs: PageLinkNeeds): Promise<void> {
  api.post(
    '/v0/page_links',
    {
      schema: {
        tags,
        operationId: 'createPageLink',
        summary: 'Create a page link',
        description:
          "Serves an audience of a page at a path: on the tenant's shared address on the pages origin, or on one of its tenant domains (`tenantDomainId`, 400 when the tenant has no such domain). The path is lowercased and unique among the live links of its domain (409 when taken). The audience must exist (400) and not be archived (409). The answer's `url` is where visitors open it.",
        body: PageLinkCreate,
        response: { 201: PageLink },
      },
    },
    async (request, reply) => {
      const link = await createPageLink(request.tenantDb, request.body, needs);
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
      return paginate(request, filters, (page) => listLivePageLinks(request.tenantDb, filters, page, needs));
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
    (request) => getPageLink(request.tenantDb, request.params.page_link_id, needs),
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
    (request) => updatePageLinkFields(request.tenantDb, request.params.page_link_id, request.body, needs),
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
    (request) => deletePageLink(request.tenantDb, request.params.page_link_id, needs),
  );
}
