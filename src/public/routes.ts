import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptBeaconBodies } from '../http/bodies.ts';
import { clientKey } from '../http/client-address.ts';
import type { RateLimit } from '../http/rate-limit.ts';
import type { Api } from '../http/types.ts';
import { AppError } from '../shared/errors.ts';
import { eventRoutes } from './event-routes.ts';
import { formRoutes } from './form-routes.ts';
import type { VisitorLimits } from './limits.ts';
import { type PageServing, pageRedirectRoutes, pageRoutes } from './page-routes.ts';
import { trackerRoutes } from './tracker-routes.ts';

/** A visitor's body (an event batch, a form), JSON or sendBeacon text: a form of 50 full fields fits. */
const VISITOR_BODY_LIMIT = 64 * 1024;

export interface PublicRouteOptions extends PageServing {
  /** The API's own address, where the resources visitors create are read. */
  apiUrl: string;
  /** True on the pages origin, which serves the pages; the API origin sends their addresses there. */
  servesPages: boolean;
  /** Requests per client address. */
  rateLimit: RateLimit;
  /** What one client address may write, as the visitors it stands for. */
  visitorLimits: VisitorLimits;
}

/**
 * A preflight must say where it comes from and what it will send; otherwise it is not one (400).
 * Written with `done`: a hook that never waits costs no promise on every visitor write.
 */
function refuseBadPreflight(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (
    request.method === 'OPTIONS' &&
    (!request.headers.origin || !request.headers['access-control-request-method'])
  ) {
    throw new AppError(
      'validation_failed',
      'A CORS preflight needs the Origin and Access-Control-Request-Method headers',
    );
  }
  done();
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
 * Pages (or, on the API origin, their redirects) and the tracking script they load, compressed
 * (gzip) for clients that accept it; bodies under 1 KB are sent as they are. A page is kept ready
 * in both encodings (src/workflows/page-view/served.ts): its route chooses which to send and
 * compress leaves it alone. gzip only: brotli (quality 4, with its window set up per response) took
 * 2 to 20 times the CPU of gzip for a page 3 % smaller (bench/scenarios/public-page.ts;
 * docs/performance.md). These GET routes take no body to decompress. No CORS: pages are opened, not
 * fetched, so no other origin may read one.
 */
async function pageScope(app: Api, { servesPages, ...serving }: PublicRouteOptions): Promise<void> {
  await app.register(compress, { encodings: ['gzip'], globalDecompression: false });
  app.addHook('onSend', varyOnEncoding);
  await app.register(trackerRoutes);
  if (servesPages) await app.register(pageRoutes, serving);
  else await app.register(pageRedirectRoutes, { pages: serving.pages });
}

/**
 * Session events and forms: JSON (or text/plain beacons) from any origin, pages' scripts being on
 * many. A body over 64 KiB is 413, whatever its type; the writes are limited per token too, by the
 * routes.
 */
async function reportScope(app: Api, options: PublicRouteOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= VISITOR_BODY_LIMIT;
  });
  app.addHook('onRequest', refuseBadPreflight);
  await app.register(cors, { origin: '*', methods: ['GET', 'POST'], maxAge: 86_400 });
  acceptBeaconBodies(app);
  await app.register(eventRoutes, options);
  await app.register(formRoutes, options);
}

/**
 * The visitor-facing side: public pages, the tracking script, session events and forms. No API
 * key; the page's signed token is the credential. Limited per client IP.
 */
export async function publicRoutes(app: Api, options: PublicRouteOptions): Promise<void> {
  // With the visitor side's limits off (TAILOR_PUBLIC_RATE_LIMIT_RPS=0, which turns this one off
  // too), no request pays for finding its client's address.
  if (options.visitorLimits.on) {
    app.addHook('onRequest', (request, reply) => options.rateLimit.take(clientKey(request.ip), reply));
  }
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimited: true };
  });
  await app.register(pageScope, options);
  await app.register(reportScope, options);
}
