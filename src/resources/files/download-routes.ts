import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Problem } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { checkLink, type DownloadTarget, PREVIEW_FORMAT, storageKey } from './download-links.ts';
import { CONTENT_TYPES } from './images.ts';
import { FileParams, OriginalDownloadQuery, PreviewDownloadQuery } from './schema.ts';

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
    content: { 'image/*': { schema: Type.String({ title: 'FileBytes', format: 'binary' }) } },
  },
  '4XX': Problem,
};

const description =
  'Needs no API key: the signature is the credential. 403 `forbidden` when the link was altered or has expired (ask the API for a fresh one: links last 1 hour); 404 `not_found` when the file has since been deleted.';

async function serve(
  request: FastifyRequest,
  reply: FastifyReply,
  target: DownloadTarget,
  link: { expires: number; signature: string },
): Promise<FastifyReply> {
  const now = Date.now();
  const check = checkLink(request.server.signer, target, link.expires, link.signature, now);
  if (check === 'forged') throw new AppError('forbidden', 'This download link is not valid');
  if (check === 'expired') {
    throw new AppError('forbidden', 'This download link has expired; get a fresh one from the API');
  }
  const bytes = await request.server.storage.get(storageKey(target.tenantId, target.fileId, target.variant));
  if (!bytes) throw notFound(`File ${target.fileId}`);
  return reply
    .type(CONTENT_TYPES[target.format])
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('Cache-Control', `private, max-age=${Math.max(0, Math.floor((link.expires - now) / 1000))}`)
    .send(bytes);
}

/** Signed, expiring download links: no API key, the signature is the credential. */
export async function fileDownloadRoutes(app: Api): Promise<void> {
  app.get(
    '/v0/public/files/:file_id',
    {
      schema: {
        tags,
        operationId: 'downloadFile',
        summary: 'Download a file by signed link',
        description,
        security: [],
        params: FileParams,
        querystring: OriginalDownloadQuery,
        response: linkResponses,
      },
    },
    (request, reply) => {
      const { tenant, type, ...link } = request.query;
      const target = {
        tenantId: tenant,
        fileId: request.params.file_id,
        variant: 'original',
        format: type,
      } as const;
      return serve(request, reply, target, link);
    },
  );

  app.get(
    '/v0/public/files/:file_id/preview',
    {
      schema: {
        tags,
        operationId: 'downloadFilePreview',
        summary: "Download a file's preview by signed link",
        description,
        security: [],
        params: FileParams,
        querystring: PreviewDownloadQuery,
        response: linkResponses,
      },
    },
    (request, reply) => {
      const { tenant, ...link } = request.query;
      const target = {
        tenantId: tenant,
        fileId: request.params.file_id,
        variant: 'preview',
        format: PREVIEW_FORMAT,
      } as const;
      return serve(request, reply, target, link);
    },
  );
}
