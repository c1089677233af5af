import { Type } from 'typebox';
import { Problem } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { AudienceVersionParams } from '../../resources/audiences/schema.ts';
import type { LinkSigner } from '../../resources/files/service.ts';
import { resolveImageUrls } from './images.ts';
import { imageRefsOf, renderPage } from './render.ts';
import { previewOf } from './service.ts';

/**
 * A preview runs nothing and sends nothing, whoever opens it and wherever it is framed: no script
 * (the tenant's scripts are left out, and none may run), no form submission, an origin of its own.
 */
const PREVIEW_POLICY =
  "default-src 'none'; img-src http: https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; sandbox";

/** The preview of any version of an audience's page that has content. */
export async function previewRoutes(api: Api, links: LinkSigner): Promise<void> {
  api.get(
    '/v0/pages/:page_id/audiences/:audience_id/versions/:version_id/preview',
    {
      schema: {
        tags: ['Audiences'],
        operationId: 'previewAudienceVersion',
        summary: 'Preview a version',
        description:
          "The HTML a visitor would be served for this version, drafts included, in the page's brand: with no tracking script and none of the page's scripts, a form that sends nothing, and `noindex`. 409 `invalid_state` for a version that has no content yet (queued, processing, or cancelled before generation).",
        params: AudienceVersionParams,
        response: {
          200: {
            description: 'The page, as HTML',
            headers: { 'Cache-Control': Type.String() },
            content: { 'text/html': { schema: Type.String({ title: 'PageHtml' }) } },
          },
          409: Problem,
        },
      },
    },
    async (request, reply) => {
      const { page_id: pageId, audience_id: audienceId, version_id: versionId } = request.params;
      const view = await previewOf(request.tenantDb, pageId, audienceId, versionId);
      const images = await resolveImageUrls(request.tenantDb, links, imageRefsOf(view));
      return reply
        .type('text/html; charset=utf-8')
        .header('Content-Security-Policy', PREVIEW_POLICY)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-store')
        .send(renderPage({ view, images }));
    },
  );
}
