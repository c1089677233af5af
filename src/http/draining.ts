import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM: the server finishes what it has and takes nothing new. */
    draining: boolean;
  }
}

/**
 * While draining, new requests on kept-alive connections are refused (`refuseWhileDraining`, which
 * the server's one onRequest hook calls) and every answer closes its connection, so that clients
 * move to another node and do not hold this process open.
 */
export function drainOnShutdown(app: FastifyInstance): void {
  app.decorate('draining', false);
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (app.draining) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** Refuses a request that arrives while `app` drains. */
export function refuseWhileDraining(app: FastifyInstance): void {
  if (app.draining) throw new AppError('unavailable', 'This server is shutting down; retry the request');
}
