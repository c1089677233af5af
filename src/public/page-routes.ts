import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Problem } from '../http/schemas.ts';
import type { Api } from '../http/types.ts';
import { VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_S } from '../workflows/page-view/holdout.ts';
import { resolveImageUrls } from '../workflows/page-view/images.ts';
import { imageRefsOf, renderNotFound, renderPage } from '../workflows/page-view/render.ts';
import { type PageView, resolvePageView } from '../workflows/page-view/service.ts';
import { issueToken, TOKEN_VALID_MS } from './token.ts';
import { TRACKER_SCRIPT, TRACKER_VERSION } from './tracker.ts';

const TRACKER_PATH = '/v0/public/tracker.js';
/** Relative, so that the page works behind whatever host serves it. */
const TRACKER_SRC = `${TRACKER_PATH}?v=${TRACKER_VERSION}`;
const TRACKER_ETAG = `"${TRACKER_VERSION}"`;
/** Long enough to spare repeat visitors the download, short enough for a fix to spread within the hour. */
const TRACKER_MAX_AGE_S = 3600;
const NOT_FOUND_PAGE = renderNotFound();

const PageParams = Type.Object({ tenantSlug: Type.String(), '*': Type.Optional(Type.String()) });

/**
 * Headers of every page: no sniffing, no full URL (with its personalized path) sent to other
 * sites. No Content-Security-Policy: the tenant's scripts must run. Never cached: the page carries
 * a fresh token and image links that expire within the hour.
 */
function sendHtml(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('Cache-Control', 'no-store')
    .send(body);
}

/**
 * Keeps the visitor id that chose the visitor's arm, for a year from the latest visit: first-party,
 * for this tenant's pages only (so that no id follows a visitor from one tenant to another), out of
 * reach of page scripts, and sent on top-level navigation from other sites (a link in an email).
 */
function keepVisitorId(request: FastifyRequest, reply: FastifyReply, view: PageView): void {
  if (view.visitorId === undefined) return;
  reply.setCookie(VISITOR_COOKIE, view.visitorId, {
    path: `/p/${view.tenant.slug}`,
    maxAge: VISITOR_COOKIE_MAX_AGE_S,
    httpOnly: true,
    sameSite: 'lax',
    secure: request.server.publicUrl.startsWith('https:'),
  });
}

async function servePage(
  request: FastifyRequest,
  reply: FastifyReply,
  tenantSlug: string,
  rest: string,
): Promise<FastifyReply> {
  const { server } = request;
  const visitor = { signer: server.signer, visitorId: request.cookies[VISITOR_COOKIE] };
  // A trailing slash is forgiven: link paths never end with one.
  const view = await resolvePageView(server.database, tenantSlug, `/${rest.replace(/\/+$/, '')}`, visitor);
  if (!view) return sendHtml(reply, 404, NOT_FOUND_PAGE);
  keepVisitorId(request, reply, view);
  const images = await resolveImageUrls(view.db, server, imageRefsOf(view));
  const token = issueToken(server.signer, {
    tenantId: view.tenant.tenantId,
    pageId: view.page.pageId,
    audienceId: view.audience.audienceId,
    pageLinkId: view.link.pageLinkId,
    arm: view.arm,
    expiresAt: Date.now() + TOKEN_VALID_MS,
  });
  return sendHtml(
    reply,
    200,
    renderPage({ view, images, visit: { token, trackerSrc: TRACKER_SRC, arm: view.arm } }),
  );
}

/**
 * Every response here may be compressed or not, by the request's Accept-Encoding: caches must keep
 * the two apart, including for clients that asked for none (a 304 says so too).
 */
async function varyOnEncoding(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/\baccept-encoding\b/i.test(vary)) {
    reply.header('vary', vary ? `${vary}, accept-encoding` : 'accept-encoding');
  }
  return payload;
}

/**
 * Public pages at /p/{tenantSlug}/{path} and the tracking script they load, compressed (gzip) for
 * clients that accept it; bodies under 1 KB are sent as they are. Compression is
 * registered in this scope only: the JSON of event and form answers is not compressed.
 */
export async function pageRoutes(app: Api): Promise<void> {
  await app.register(cookie);
  // gzip only: each page is compressed as it is sent (its token differs per visitor), and brotli
  // (quality 4, with its window set up per response) took 2 to 20 times the CPU of gzip for a page
  // 3 % smaller (bench/scenarios/public-page.ts; docs/performance.md). These GET routes take no
  // body to decompress.
  await app.register(compress, { encodings: ['gzip'], globalDecompression: false });
  app.addHook('onSend', varyOnEncoding);
  app.get(
    TRACKER_PATH,
    {
      schema: {
        tags: ['Public'],
        operationId: 'getTrackerScript',
        summary: 'The tracking script of public pages',
        description:
          'JavaScript that public pages load: it reports the session to POST /v0/public/events and submits the action form to POST /v0/public/forms. Needs no API key; cacheable, with an ETag.',
        security: [],
        response: {
          200: {
            description: 'The script',
            content: { 'text/javascript': { schema: Type.String({ title: 'TrackerScript' }) } },
          },
          304: Type.Null({ description: 'Not modified: the copy the client has is current' }),
          '4XX': Problem,
        },
      },
    },
    (request, reply) => {
      reply
        .header('Cache-Control', `public, max-age=${TRACKER_MAX_AGE_S}`)
        .header('ETag', TRACKER_ETAG)
        .header('X-Content-Type-Options', 'nosniff');
      if (request.headers['if-none-match'] === TRACKER_ETAG) {
        reply.code(304).send(null);
        return;
      }
      reply.type('text/javascript; charset=utf-8').send(TRACKER_SCRIPT);
    },
  );

  // Pages are HTML for visitors, not API operations: they stay out of the OpenAPI document.
  app.get('/p/:tenantSlug', { schema: { hide: true, params: PageParams } }, (request, reply) =>
    servePage(request, reply, request.params.tenantSlug, ''),
  );
  app.get('/p/:tenantSlug/*', { schema: { hide: true, params: PageParams } }, (request, reply) =>
    servePage(request, reply, request.params.tenantSlug, request.params['*'] ?? ''),
  );
}
