import cors from '@fastify/cors';
import { acceptBeaconBodies } from '../http/bodies.ts';
import type { Api } from '../http/types.ts';
import { eventRoutes } from './event-routes.ts';
import { formRoutes } from './form-routes.ts';
import { pageRoutes } from './page-routes.ts';

const BEACON_LIMIT = 64 * 1024;

/**
 * The visitor-facing side: public pages, the tracking script, session events and forms. No API
 * key; the page's signed token is the credential. Open to every origin, limited per client IP.
 */
export async function publicRoutes(app: Api): Promise<void> {
  app.addHook('onRequest', (request, reply) => app.publicRateLimit.take(request.ip, reply));
  await app.register(cors, { origin: '*', methods: ['GET', 'POST'], maxAge: 86_400 });
  acceptBeaconBodies(app, BEACON_LIMIT);
  await app.register(pageRoutes);
  await app.register(eventRoutes);
  await app.register(formRoutes);
}
