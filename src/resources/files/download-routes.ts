import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { type Static, type TSchema, Type } from 'typebox';
import type { Database } from '../../db/connection.ts';
import { clientKey } from '../../http/client-address.ts';
import { type ConcurrencyLimit, createConcurrencyLimit } from '../../http/concurrency-limit.ts';
import { createRateLimit, type RateLimit } from '../../http/rate-limit.ts';
import { Problem } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import type { Signer } from '../../shared/signing.ts';
import { checkLink, type DownloadTarget, isImageLink, PREVIEW_FORMAT, storageKey } from './download-links.ts';
import { CONTENT_TYPES } from './images.ts';
import { FileParams, ImageLinkQuery, OriginalDownloadQuery, PreviewDownloadQuery } from './schema.ts';
import { isLiveFile } from './service.ts';
import type { FileStorage } from './storage.ts';

const tags = ['Files'];
/**
 * Nothing in a served file may run or load anything: an SVG can carry script and links. `sandbox`
 * also gives a document opened directly an opaque origin.
 */
const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox";

// Typed loosely: the answer is bytes that no schema serializes, whatever the type provider infers.
const linkResponses: Record<string, unknown> = {
  200: {
    description: 'The bytes, with their stored content type',
    headers: { 'Cache-Control': Type.String() },
    content: { 'image/*': { schema: Type.String({ title: 'FileBytes', format: 'binary' }) } },
  },
  403: Problem,
  '4XX': Problem,
};

const description =
  'Needs no API key: the signature is the credential. 403 `forbidden` when the link was altered or has expired (ask the API for a fresh one: links last 1 hour); 404 `not_found` when the file has since been deleted; 429 `rate_limited` past the limits per client address (a rate, and 16 downloads at once). The bytes are streamed, with `Content-Length`.';

/** A download that sends nothing for this long (its client stopped reading) is cut off. */
const STALLED_DOWNLOAD_MS = 30_000;
/** Downloads one client address may have in progress at once (when per-address limits are on). */
const DOWNLOADS_AT_ONCE_PER_ADDRESS = 16;

export interface DownloadLimitOptions {
  /** Downloads per second per client address (burst twice that); 0 turns the per-address limits off. */
  perAddressRps: number;
  /** Where the rate counters live, shared by every node, when given. */
  redis?: Redis;
}

/** The limits per client address of downloads: made once, for every listener that serves them. */
export interface DownloadLimits {
  rate: RateLimit;
  atOnce: ConcurrencyLimit;
}

export function createDownloadLimits(options: DownloadLimitOptions): DownloadLimits {
  return {
    rate: createRateLimit({
      perSecond: options.perAddressRps,
      burst: options.perAddressRps * 2,
      name: 'download',
      counts: 'downloads',
      redis: options.redis,
    }),
    atOnce: createConcurrencyLimit({
      perKey: options.perAddressRps > 0 ? DOWNLOADS_AT_ONCE_PER_ADDRESS : 0,
      counts: 'downloads',
    }),
  };
}

/** What the download routes serve with: the signer that checks links, and the stored bytes. */
export interface DownloadRouteOptions {
  limits: DownloadLimits;
  /** Where a page image's link finds whether its file is deleted. */
  database: Database;
  signer: Signer;
  storage: FileStorage;
}

/** A year: the longest a cache is asked to keep anything, for bytes that never change under their link. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Sends the stored bytes of `target`, or 404 when they are gone. */
async function sendStored(
  storage: FileStorage,
  request: FastifyRequest,
  reply: FastifyReply,
  target: DownloadTarget,
  cacheControl: string,
): Promise<FastifyReply> {
  const stored = await storage.open(storageKey(target.tenantId, target.fileId, target.variant));
  if (!stored) throw notFound(`File ${target.fileId}`);
  reply
    .type(CONTENT_TYPES[target.format])
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('Cache-Control', cacheControl);
  if (stored.size !== undefined) reply.header('Content-Length', stored.size);
  if (request.method === 'HEAD') {
    stored.body.destroy();
    return reply.send();
  }
  reply.raw.setTimeout(STALLED_DOWNLOAD_MS, () => reply.raw.destroy());
  // Streamed: a client that reads slowly, or not at all, holds a buffer's worth, not the file.
  return reply.send(stored.body);
}

function serve(
  { signer, storage }: DownloadRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  target: DownloadTarget,
  link: { expires: number; signature: string },
): Promise<FastifyReply> {
  const now = Date.now();
  const check = checkLink(signer, target, link.expires, link.signature, now);
  if (check === 'forged') throw new AppError('forbidden', 'This download link is not valid');
  if (check === 'expired') {
    throw new AppError('forbidden', 'This download link has expired; get a fresh one from the API');
  }
  const maxAge = Math.max(0, Math.floor((link.expires - now) / 1000));
  return sendStored(storage, request, reply, target, `private, max-age=${maxAge}`);
}

/**
 * A page's image by its lasting link (download-links.ts): cached by anyone for a year, since the
 * bytes under a link never change; served only while the file is not deleted, which ends the link.
 */
async function serveImage(
  { signer, storage, database }: DownloadRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  target: DownloadTarget,
  signature: string,
): Promise<FastifyReply> {
  if (!isImageLink(signer, target, signature))
    throw new AppError('forbidden', 'This image link is not valid');
  if (!(await isLiveFile(database.forTenant(target.tenantId), target.fileId))) {
    throw notFound(`File ${target.fileId}`);
  }
  return sendStored(storage, request, reply, target, IMMUTABLE);
}

/**
 * GET and HEAD of a download route. HEAD is a route of its own: Fastify's automatic one would read
 * the whole stream to throw it away.
 */
function linkRoute<Query extends TSchema>(
  app: Api,
  route: { url: string; operationId: string; summary: string; querystring: Query; hide?: boolean },
  handle: (
    request: FastifyRequest,
    reply: FastifyReply,
    fileId: string,
    query: Static<Query>,
  ) => Promise<FastifyReply>,
): void {
  for (const method of ['GET', 'HEAD'] as const) {
    app.route({
      method,
      url: route.url,
      exposeHeadRoute: false,
      config: { rateLimited: true },
      schema: {
        tags,
        operationId: route.operationId,
        summary: route.summary,
        description,
        security: [],
        params: FileParams,
        querystring: route.querystring,
        response: linkResponses,
        ...(route.hide ? { hide: true } : {}),
      },
      handler: (request, reply) =>
        handle(
          request,
          reply,
          (request.params as { file_id: string }).file_id,
          request.query as Static<Query>,
        ),
    });
  }
}

/**
 * Signed, expiring download links: no API key, the signature is the credential. Limited per client
 * address: a rate, and a number in progress at once (each holds an open file or a bucket connection).
 */
export async function fileDownloadRoutes(app: Api, options: DownloadRouteOptions): Promise<void> {
  const { rate, atOnce } = options.limits;
  app.addHook('onRequest', async (request, reply) => {
    const client = clientKey(request.ip);
    await rate.take(client, reply);
    atOnce.enter(client, reply);
  });

  linkRoute(
    app,
    {
      url: '/v0/public/files/:file_id',
      operationId: 'downloadFile',
      summary: 'Download a file by signed link',
      querystring: OriginalDownloadQuery,
    },
    (request, reply, fileId, { tenant, type, expires, signature }) =>
      serve(
        options,
        request,
        reply,
        { tenantId: tenant, fileId, variant: 'original', format: type },
        {
          expires,
          signature,
        },
      ),
  );
  linkRoute(
    app,
    {
      url: '/v0/public/files/:file_id/preview',
      operationId: 'downloadFilePreview',
      summary: "Download a file's preview by signed link",
      querystring: PreviewDownloadQuery,
    },
    (request, reply, fileId, { tenant, expires, signature }) =>
      serve(
        options,
        request,
        reply,
        { tenantId: tenant, fileId, variant: 'preview', format: PREVIEW_FORMAT },
        {
          expires,
          signature,
        },
      ),
  );
  // Links that public pages carry, not an API operation: kept out of the OpenAPI document.
  linkRoute(
    app,
    {
      url: '/v0/public/images/:file_id',
      operationId: 'pageImage',
      summary: "A public page's image by its lasting link",
      querystring: ImageLinkQuery,
      hide: true,
    },
    (request, reply, fileId, { tenant, type, signature }) =>
      serveImage(
        options,
        request,
        reply,
        { tenantId: tenant, fileId, variant: 'original', format: type },
        signature,
      ),
  );
}
