import cors from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import { acceptBeaconBodies } from '../http/bodies.ts';
import type { Api } from '../http/types.ts';
import { AppError } from '../shared/errors.ts';
import { eventRoutes } from './event-routes.ts';
import { formRoutes } from './form-routes.ts';
import { pageRoutes } from './page-routes.ts';

/** A visitor's body (an event batch, a form), JSON or sendBeacon text: a form of 50 full fields fits. */
const VISITOR_BODY_LIMIT = 64 * 1024;

/** A preflight must say where it comes from and what it will send; otherwise it is not one (400). */
async function refuseBadPreflight(request: FastifyRequest): Promise<void> {
  if (request.method !== 'OPTIONS') return;
  if (!request.headers.origin || !request.headers['access-control-request-method']) {
    throw new AppError(
      'validation_failed',
      'A CORS preflight needs the Origin and Access-Control-Request-Method headers',
    );
  }
}

/**
 * The visitor-facing side: public pages, the tracking script, session events and forms. No API
 * key; the page's signed token is the credential. Open to every origin, limited per client IP (and
 * the writes per token too, by the routes). A body over 64 KiB is 413, whatever its type.
 */
export async function publicRoutes(app: Api): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= VISITOR_BODY_LIMIT;
  });
  app.addHook('onRequest', (request, reply) => app.publicRateLimit.take(request.ip, reply));
  app.addHook('onRequest', refuseBadPreflight);
  await app.register(cors, { origin: '*', methods: ['GET', 'POST'], maxAge: 86_400 });
  acceptBeaconBodies(app, VISITOR_BODY_LIMIT);
  await app.register(pageRoutes);
  await app.register(eventRoutes);
  await app.register(formRoutes);
}
