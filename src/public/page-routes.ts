import { constants, gzipSync } from 'node:zlib';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip, noneMatch } from '../http/conditional.ts';
import type { Api } from '../http/types.ts';
import { notFound } from '../shared/errors.ts';
import type { PagesOrigin } from '../shared/pages-origin.ts';
import { onPagesOrigin, originOf, type PageRequest } from '../workflows/page-view/address.ts';
import {
  boundVisitorId,
  VISITOR_COOKIE,
  VISITOR_COOKIE_MAX_AGE_S,
  visitorCookieValue,
} from '../workflows/page-view/holdout.ts';
import { renderNotFound } from '../workflows/page-view/render.ts';
import { generationsOf, type ServedPage, type Serving, servedPage } from '../workflows/page-view/served.ts';
import { ServedCache } from '../workflows/page-view/served-cache.ts';
import { issueToken, TOKEN_VALID_MS, type TokenReader } from './token.ts';
import { TRACKER_SRC } from './tracker-routes.ts';

/** The one 404 page, kept in both encodings: it is the same for every address. */
const NOT_FOUND_HTML = renderNotFound();
const NOT_FOUND_PAGES = {
  html: { body: NOT_FOUND_HTML, gzip: false },
  gzip: { body: gzipSync(NOT_FOUND_HTML, { level: constants.Z_BEST_COMPRESSION }), gzip: true },
};

/**
 * A page on an origin that every tenant shares runs its tenant's scripts in an opaque origin of
 * their own: they may run, submit the form and open links, but read no cookie or storage of the
 * origin, plant no cookie for another tenant's pages (such as the visitor id that picks a holdout
 * arm), and read no other page of the origin. A window it opens stays in the sandbox (no
 * `allow-popups-to-escape-sandbox`): the page cannot open a page of another origin, the console
 * above all, with that origin's rights in a window it then holds. A tenant whose scripts need
 * storage, or whose new windows should open unsandboxed, gets an origin of its own: `{tenant}` in
 * TAILOR_PAGES_URL, or a tenant domain (docs/public-pages.md).
 */
const SHARED_ORIGIN_SANDBOX = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

export interface PageRouteOptions {
  pages: PagesOrigin;
}

/** What serving pages reads: the tenants' database, and the signer of visitors' ids and tokens. */
export interface PageServing extends PageRouteOptions, TokenReader {}

/** A body in the encoding the request takes (gzip or none); with an ETag (a hash of it) when it is a page. */
interface Body {
  body: string | Buffer;
  gzip: boolean;
  etag?: string;
}

/**
 * Headers of every page: no sniffing, no full URL (with its personalized path) sent to other
 * sites. No Content-Security-Policy that would stop the tenant's scripts. A page is kept by the
 * browser but asked for again each time (`no-cache`): the ETag answers 304 while it is unchanged, and
 * a publish shows on the next request. The body is sent as it was kept, gzip when the client takes
 * it (compress leaves these routes alone); an ETag per encoding, as RFC 9110 asks of a strong one.
 * The 404 page is not kept at all: the address may serve a page soon.
 */
function sendHtml(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: Body,
  sandboxed: boolean,
  setCookie?: string,
): FastifyReply {
  if (sandboxed) reply.header('Content-Security-Policy', SHARED_ORIGIN_SANDBOX);
  const { gzip } = body;
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('Cache-Control', body.etag ? 'no-cache' : 'no-store');
  if (body.etag) {
    const etag = `"${body.etag}${gzip ? '-gzip' : ''}"`;
    reply.header('ETag', etag);
    if (noneMatch(request.headers['if-none-match'], etag))
      return withCookie(reply.code(304), setCookie).send();
  }
  if (gzip) reply.header('Content-Encoding', 'gzip');
  return withCookie(reply, setCookie).send(body.body);
}

/** The visitor's cookie, last among the headers, where @fastify/cookie's onSend hook put it. */
function withCookie(reply: FastifyReply, setCookie: string | undefined): FastifyReply {
  return setCookie === undefined ? reply : reply.header('Set-Cookie', setCookie);
}

/** Whether the page at `address` is served on the origin every tenant shares. */
function onSharedOrigin(
  address: PageRequest,
  pages: PagesOrigin,
): address is Extract<PageRequest, { kind: 'shared' }> {
  return address.kind === 'shared' && !pages.perTenant;
}

interface VisitorCookie {
  name: string;
  path: string;
  secure: boolean;
  /** The origin its value is bound to by a signature, where a sibling host could toss one. */
  boundTo: string | undefined;
}

/**
 * Where the visitor id lives: for this tenant's pages only, so that no id follows a visitor from one
 * tenant to another. On the shared origin that is the tenant's path (its pages' scripts, sandboxed,
 * cannot write cookies). On an origin of the tenant's own, a page of a sibling host (another
 * tenant's `{tenant}` host) could toss a cookie at it with a Domain attribute, to choose the
 * visitor's arm: over https the cookie is `__Host-`, which no other host can set; over plain http,
 * where no name is safe from it, its value is bound to the origin by a signature, so that an id
 * minted on another tenant's origin, or made up, is refused.
 */
function visitorCookie(address: PageRequest, pages: PagesOrigin): VisitorCookie {
  const origin = originOf(pages, address);
  const secure = origin.startsWith('https:');
  if (onSharedOrigin(address, pages)) {
    return { name: VISITOR_COOKIE, path: `/p/${address.tenantSlug}`, secure, boundTo: undefined };
  }
  if (secure) return { name: `__Host-${VISITOR_COOKIE}`, path: '/', secure, boundTo: undefined };
  return { name: VISITOR_COOKIE, path: '/', secure, boundTo: origin };
}

/**
 * The Set-Cookie header that keeps the visitor id that chose the visitor's arm, for a year from the
 * latest visit: first-party, out of reach of page scripts, and sent on top-level navigation from
 * other sites (a link in an email). None when no holdout chose the arm.
 */
function visitorIdCookie(
  app: FastifyInstance,
  { pages, signer }: Serving,
  { visitorId, address }: ServedPage,
): string | undefined {
  if (visitorId === undefined) return undefined;
  const cookie = visitorCookie(address, pages);
  return app.serializeCookie(cookie.name, visitorCookieValue(signer, visitorId, cookie.boundTo), {
    path: cookie.path,
    maxAge: VISITOR_COOKIE_MAX_AGE_S,
    httpOnly: true,
    sameSite: 'lax',
    secure: cookie.secure,
  });
}

/**
 * The visitor id in the cookie of the page at `address`. Cookies are parsed here, only for a page
 * with a holdout (visitorArm asks), rather than for every request by @fastify/cookie's hook. Where
 * the value is bound to the origin, a cookie tossed from a sibling host comes with the visitor's own
 * (the browser sends both, in an order the tosser can choose by its path, and this page cannot
 * replace a Domain cookie): the id is the first value bound to this origin.
 */
function visitorIdIn(
  request: FastifyRequest,
  address: PageRequest,
  { pages, signer }: Serving,
): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const { name, boundTo } = visitorCookie(address, pages);
  if (boundTo === undefined) return request.server.parseCookie(header)[name];
  for (const value of cookieValues(header, name)) {
    const visitorId = boundVisitorId(signer, value, boundTo);
    if (visitorId !== undefined) return visitorId;
  }
  return undefined;
}

/**
 * Every value of the cookie `name` in a Cookie header, in its order (a parser keeps only the
 * first). Values here are base64url and `.`, never quoted or escaped.
 */
function cookieValues(header: string, name: string): string[] {
  const prefix = `${name}=`;
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(prefix))
    .map((pair) => pair.slice(prefix.length));
}

async function servePage(
  request: FastifyRequest,
  reply: FastifyReply,
  serving: Serving,
): Promise<FastifyReply> {
  const gzip = acceptsGzip(request.headers['accept-encoding']);
  const answer = await servedPage(serving, { host: request.host, url: request.url, gzip }, (address) =>
    visitorIdIn(request, address, serving),
  );
  if ('redirect' in answer) return reply.redirect(answer.redirect, 308);
  // The 404 page runs no script: it needs no sandbox.
  if ('notFound' in answer) {
    return sendHtml(request, reply, 404, gzip ? NOT_FOUND_PAGES.gzip : NOT_FOUND_PAGES.html, false);
  }
  const { served } = answer;
  const setCookie = visitorIdCookie(request.server, serving, served);
  return sendHtml(request, reply, 200, served, onSharedOrigin(served.address, serving.pages), setCookie);
}

/**
 * Public pages, on the pages origin: every GET that no endpoint of /v0/public/* takes is a page
 * address, read from its Host and path (src/workflows/page-view/address.ts). Pages are HTML for
 * visitors, not API operations: they stay out of the OpenAPI document.
 */
export async function pageRoutes(app: Api, { pages, database, signer }: PageServing): Promise<void> {
  const serving: Serving = {
    pages,
    database,
    kept: new ServedCache(),
    generations: generationsOf(database),
    signer,
    visits: {
      trackerSrc: TRACKER_SRC,
      tokenValidMs: TOKEN_VALID_MS,
      issueToken: (claims, expiresAt) => issueToken(signer, { ...claims, expiresAt }),
    },
  };
  // Its decorators only: a page parses the cookie header itself, when its holdout needs the
  // visitor id (visitorIdIn), and sets its one cookie itself (withCookie).
  await app.register(cookie, { hook: false });
  app.get('/*', { schema: { hide: true }, compress: false }, (request, reply) =>
    servePage(request, reply, serving),
  );
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
