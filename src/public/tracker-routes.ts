import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { Problem } from '../http/schemas.ts';
import type { Api } from '../http/types.ts';
import { TRACKER_SCRIPT, TRACKER_VERSION } from './tracker.ts';

const TRACKER_PATH = '/v0/public/tracker.js';
/** Relative, so that the page works on whatever host serves it (the pages origin, a tenant domain). */
export const TRACKER_SRC = `${TRACKER_PATH}?v=${TRACKER_VERSION}`;
const TRACKER_ETAG = `"${TRACKER_VERSION}"`;
/** Long enough to spare repeat visitors the download, short enough for a fix to spread within the hour. */
const TRACKER_MAX_AGE_S = 3600;

/** What the script's answers say about keeping it, a 304 included. */
const cacheHeaders = { ETag: Type.String(), 'Cache-Control': Type.String() };

/** GET /v0/public/tracker.js: the tracking script of public pages, cacheable, with an ETag. */
export async function trackerRoutes(app: Api): Promise<void> {
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
            headers: cacheHeaders,
            content: { 'text/javascript': { schema: Type.String({ title: 'TrackerScript' }) } },
          },
          // No body and no content type (RFC 9110 §15.4.5): `type: 'null'` keeps the document from giving it one.
          304: {
            type: 'null',
            description: 'Not modified: the copy the client has is current',
            headers: cacheHeaders,
          },
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
        // An empty body: Fastify would write `null` out as a 4-byte JSON body.
        (reply as FastifyReply).code(304).send();
        return;
      }
      reply.type('text/javascript; charset=utf-8').send(TRACKER_SCRIPT);
    },
  );
}
