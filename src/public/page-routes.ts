import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api } from '../http/types.ts';
import { notFound } from '../shared/errors.ts';
import type { PagesOrigin } from '../shared/pages-origin.ts';
import { onPagesOrigin, originOf, type PageAddress, pageAddressOf } from '../workflows/page-view/address.ts';
import { VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_S } from '../workflows/page-view/holdout.ts';
import { resolveImageUrls } from '../workflows/page-view/images.ts';
import { imageRefsOf, renderNotFound, renderPage } from '../workflows/page-view/render.ts';
import { type PageView, resolvePageView } from '../workflows/page-view/service.ts';
import { issueToken, TOKEN_VALID_MS, type TokenReader } from './token.ts';
import { TRACKER_SRC } from './tracker-routes.ts';

const NOT_FOUND_PAGE = renderNotFound();

/**
 * A page on an origin that every tenant shares runs its tenant's scripts in an opaque origin of
 * their own: they may run, submit the form and open links, but read no cookie or storage of the
 * origin, plant no cookie for another tenant's pages (such as the visitor id that picks a holdout
 * arm), and read no other page of the origin. A tenant whose scripts need storage gets an origin of
 * its own: `{tenant}` in TAILOR_PAGES_URL, or a tenant domain (docs/public-pages.md).
 */
const SHARED_ORIGIN_SANDBOX =
  'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals allow-downloads';

export interface PageRouteOptions {
  pages: PagesOrigin;
}

/** What serving pages reads: the tenants' database, and the signer of visitors' ids and tokens. */
export interface PageServing extends PageRouteOptions, TokenReader {}

/**
 * Headers of every page: no sniffing, no full URL (with its personalized path) sent to other
 * sites. No Content-Security-Policy that would stop the tenant's scripts. Never cached: the page
 * carries a fresh token and image links that expire within the hour.
 */
function sendHtml(reply: FastifyReply, status: number, body: string, sandboxed: boolean): FastifyReply {
  if (sandboxed) reply.header('Content-Security-Policy', SHARED_ORIGIN_SANDBOX);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('Cache-Control', 'no-store')
    .send(body);
}

/** Whether the page at `address` is served on the origin every tenant shares. */
function onSharedOrigin(
  address: PageAddress,
  pages: PagesOrigin,
): address is Extract<PageAddress, { kind: 'shared' }> {
  return address.kind === 'shared' && !pages.perTenant;
}

interface VisitorCookie {
  name: string;
  path: string;
  secure: boolean;
}

/**
 * Where the visitor id lives: for this tenant's pages only, so that no id follows a visitor from one
 * tenant to another. On the shared origin that is the tenant's path (its pages' scripts, sandboxed,
 * cannot write cookies). On an origin of the tenant's own, served over https, it is a `__Host-`
 * cookie, which no page of a sibling host can set for it with a Domain attribute (cookie tossing
 * from another tenant's `{tenant}` host, which could choose the visitor's arm).
 */
function visitorCookie(address: PageAddress, pages: PagesOrigin, origin: string): VisitorCookie {
  const secure = origin.startsWith('https:');
  if (onSharedOrigin(address, pages)) {
    return { name: VISITOR_COOKIE, path: `/p/${address.tenantSlug}`, secure };
  }
  return { name: secure ? `__Host-${VISITOR_COOKIE}` : VISITOR_COOKIE, path: '/', secure };
}

/**
 * Keeps the visitor id that chose the visitor's arm, for a year from the latest visit: first-party,
 * out of reach of page scripts, and sent on top-level navigation from other sites (a link in an email).
 */
function keepVisitorId(reply: FastifyReply, view: PageView, cookie: VisitorCookie): void {
  if (view.visitorId === undefined) return;
  reply.setCookie(cookie.name, view.visitorId, {
    path: cookie.path,
    maxAge: VISITOR_COOKIE_MAX_AGE_S,
    httpOnly: true,
    sameSite: 'lax',
    secure: cookie.secure,
  });
}

async function servePage(
  request: FastifyRequest,
  reply: FastifyReply,
  { pages, database, signer }: PageServing,
): Promise<FastifyReply> {
  const answer = await pageAddressOf(database, pages, request.host, request.url);
  if ('redirect' in answer) return reply.redirect(answer.redirect, 308);
  // The 404 page runs no script: it needs no sandbox.
  if ('notFound' in answer) return sendHtml(reply, 404, NOT_FOUND_PAGE, false);
  const address = answer.serve;
  const origin = originOf(pages, address);
  const cookie = visitorCookie(address, pages, origin);
  const visitor = { signer, visitorId: request.cookies[cookie.name] };
  const view = await resolvePageView(database, address, visitor);
  if (!view) return sendHtml(reply, 404, NOT_FOUND_PAGE, false);
  keepVisitorId(reply, view, cookie);
  const images = await resolveImageUrls(view.db, { signer, publicUrl: origin }, imageRefsOf(view));
  const token = issueToken(signer, {
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
    onSharedOrigin(address, pages),
  );
}

/**
 * Public pages, on the pages origin: every GET that no endpoint of /v0/public/* takes is a page
 * address, read from its Host and path (src/workflows/page-view/address.ts). Pages are HTML for
 * visitors, not API operations: they stay out of the OpenAPI document.
 */
export async function pageRoutes(app: Api, options: PageServing): Promise<void> {
  await app.register(cookie);
  app.get('/*', { schema: { hide: true } }, (request, reply) => servePage(request, reply, options));
}

/**
 * On the API origin (the console's), a page address answers 308 to the same address on the pages
 * origin: tenant HTML never runs on the console's origin.
 */
export async function pageRedirectRoutes(app: Api, { pages }: PageRouteOptions): Promise<void> {
  const redirect = (request: FastifyRequest, reply: FastifyReply) => {
    const location = onPagesOrigin(pages, request.url);
    if (!location) throw notFound('Page');
    return reply.redirect(location, 308);
  };
  app.get('/p', { schema: { hide: true } }, redirect);
  app.get('/p/*', { schema: { hide: true } }, redirect);
}
