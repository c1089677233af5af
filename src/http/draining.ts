import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM: the server finishes what it has and takes nothing new. */
    draining: boolean;
  }
}

/**
 * While draining, new requests on kept-alive connections are refused and every answer closes its
 * connection, so that clients move to another node and do not hold this process open.
 */
export function drainOnShutdown(app: FastifyInstance): void {
  app.decorate('draining', false);
  app.addHook('onRequest', async () => {
    if (app.draining) throw new AppError('unavailable', 'This server is shutting down; retry the request');
  });
  app.addHook('onSend', async (_request, reply) => {
    if (app.draining) reply.header('connection', 'close');
  });
}
