import { paginate } from '../../http/pagination.ts';
import { EmptyBody } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  Audience,
  AudienceCreate,
  AudienceIndexQuery,
  AudienceList,
  AudienceListQuery,
  AudienceParams,
  AudienceUpdate,
  AudienceVersionList,
  AudienceVersionParams,
  AudienceVersionWithContent,
  PageAudienceParams,
} from '../../resources/audiences/schema.ts';
import { editVersion } from './edits.ts';
import { AudienceVersionUpdate } from './schema.ts';
import {
  archiveAudience,
  cancelLatest,
  createAudience,
  getAudience,
  getAudienceVersion,
  listAudiences,
  listAudienceVersions,
  listPageAudiences,
  publishLatest,
  queueNewVersion,
  updateAudience,
} from './service.ts';

const tags = ['Audiences'];
const ONE = '/v0/pages/:page_id/audiences/:audience_id';

/** Every audience endpoint: an audience's life is its versions' (queue, generate, publish). */
export async function audienceRoutes(api: Api): Promise<void> {
  api.post(
    '/v0/pages/:page_id/audiences',
    {
      schema: {
        tags,
        operationId: 'createAudience',
        summary: 'Create an audience',
        description:
          'Makes version 0 (the page unpersonalized, published at once) and version 1, queued for generation. The page must be neither archived nor deleted (409); personId must be a person of your tenant (400).',
        params: PageAudienceParams,
        body: AudienceCreate,
        response: { 201: Audience },
      },
    },
    async (request, reply) => {
      const audience = await createAudience(
        request.tenantDb,
        request.params.page_id,
        request.body,
        Date.now(),
      );
      return reply
        .code(201)
        .header('Location', `/v0/pages/${audience.pageId}/audiences/${audience.audienceId}`)
        .send(audience);
    },
  );

  api.get(
    '/v0/pages/:page_id/audiences',
    {
      schema: {
        tags,
        operationId: 'listAudiences',
        summary: "List a page's audiences",
        description: 'Newest first, archived audiences included.',
        params: PageAudienceParams,
        querystring: AudienceListQuery,
        response: { 200: AudienceList },
      },
    },
    (request) => {
      const pageId = request.params.page_id;
      return paginate(request, { pageId }, (page) => listPageAudiences(request.tenantDb, pageId, page));
    },
  );

  api.get(
    ONE,
    {
      schema: {
        tags,
        operationId: 'getAudience',
        summary: 'Get an audience',
        description:
          'The audience of the page, archived ones included: its names, its person or account, its latest and published versions and its effective metadata.',
        params: AudienceParams,
        response: { 200: Audience },
      },
    },
    (request) => getAudience(request.tenantDb, request.params.page_id, request.params.audience_id),
  );

  api.patch(
    ONE,
    {
      schema: {
        tags,
        operationId: 'updateAudience',
        summary: 'Update an audience',
        description:
          'Names, overrides, context and autoPublish; no new version is made. Omitted fields stay, null clears. Archived: 409.',
        params: AudienceParams,
        body: AudienceUpdate,
        response: { 200: Audience },
      },
    },
    (request) =>
      updateAudience(
        request.tenantDb,
        request.params.page_id,
        request.params.audience_id,
        request.body,
        Date.now(),
      ),
  );

  api.delete(
    ONE,
    {
      schema: {
        tags,
        operationId: 'archiveAudience',
        summary: 'Archive an audience',
        description:
          'Status archived; archivedAt set on the audience and its latest and published versions; unfinished generation is cancelled. Archiving again returns it unchanged.',
        params: AudienceParams,
        response: { 200: Audience },
      },
    },
    (request) =>
      archiveAudience(request.tenantDb, request.params.page_id, request.params.audience_id, Date.now()),
  );

  api.get(
    '/v0/audiences',
    {
      schema: {
        tags,
        operationId: 'listAllAudiences',
        summary: 'List audiences across pages',
        description:
          "Every page's audiences, newest first, archived ones included, each with its `pageId`. `personId` keeps the audiences made for that person, `accountId` those made for that account as a whole; given together, the audiences that match both. An id of nothing gives an empty list.",
        querystring: AudienceIndexQuery,
        response: { 200: AudienceList },
      },
    },
    (request) => {
      const { personId, accountId } = request.query;
      const filters = { personId, accountId };
      return paginate(request, filters, (page) => listAudiences(request.tenantDb, filters, page));
    },
  );

  api.post(
    `${ONE}/versions`,
    {
      schema: {
        tags,
        operationId: 'createAudienceVersion',
        summary: 'Queue a new version',
        description:
          'Generates a new version from the audience as it is now; older unfinished versions are cancelled. Answers the audience, whose latestVersion is the new one. Archived: 409.',
        params: AudienceParams,
        body: EmptyBody,
        response: { 201: Audience },
      },
    },
    async (request, reply) => {
      const audience = await queueNewVersion(
        request.tenantDb,
        request.params.page_id,
        request.params.audience_id,
        Date.now(),
      );
      return reply
        .code(201)
        .header('Location', `/v0/pages/${audience.pageId}/audiences/${audience.audienceId}/versions`)
        .send(audience);
    },
  );

  api.get(
    `${ONE}/versions`,
    {
      schema: {
        tags,
        operationId: 'listAudienceVersions',
        summary: "List an audience's versions",
        description: 'Newest first, with their state and generated content.',
        params: AudienceParams,
        querystring: AudienceListQuery,
        response: { 200: AudienceVersionList },
      },
    },
    (request) => {
      const { page_id: pageId, audience_id: audienceId } = request.params;
      return paginate(request, { audienceId }, (page) =>
        listAudienceVersions(request.tenantDb, pageId, audienceId, page),
      );
    },
  );

  api.get(
    `${ONE}/versions/:version_id`,
    {
      schema: {
        tags,
        operationId: 'getAudienceVersion',
        summary: 'Get a version',
        description:
          'With its state and content (null until generated), who wrote it, and when it was last edited.',
        params: AudienceVersionParams,
        response: { 200: AudienceVersionWithContent },
      },
    },
    (request) => {
      const { page_id: pageId, audience_id: audienceId, version_id: versionId } = request.params;
      return getAudienceVersion(request.tenantDb, pageId, audienceId, versionId);
    },
  );

  api.patch(
    `${ONE}/versions/:version_id`,
    {
      schema: {
        tags,
        operationId: 'updateAudienceVersion',
        summary: "Edit a draft's copy",
        description:
          'Replaces the headline, the subheadline or the sections of a draft (409 `invalid_state` in any other state, or when the audience is archived) and sets editedAt. The edit passes the check generated copy passes: each part that fails it is a field error at its pointer (`/body/content/sections/1/body`), and nothing is changed. The edit shows in the preview and, once published, on the page; generating again makes a new version and leaves this one as it is.',
        params: AudienceVersionParams,
        body: AudienceVersionUpdate,
        response: { 200: AudienceVersionWithContent },
      },
    },
    (request) => {
      const { page_id: pageId, audience_id: audienceId, version_id: versionId } = request.params;
      return editVersion(request.tenantDb, pageId, audienceId, versionId, request.body, Date.now());
    },
  );

  const actions = [
    [
      'publish',
      'Publish the latest version',
      'The latest version must be a draft (409 otherwise); already published: unchanged.',
      publishLatest,
    ],
    [
      'cancel',
      'Cancel the latest version',
      'While it is queued, processing or pending; already cancelled: unchanged; otherwise 409.',
      cancelLatest,
    ],
  ] as const;
  for (const [action, summary, description, run] of actions) {
    api.post(
      `${ONE}/${action}`,
      {
        schema: {
          operationId: `${action}AudienceVersion`,
          tags,
          summary,
          description,
          params: AudienceParams,
          body: EmptyBody,
          response: { 200: Audience },
        },
      },
      (request) => run(request.tenantDb, request.params.page_id, request.params.audience_id, Date.now()),
    );
  }
}
