import type { FastifyError } from 'fastify';
import type { Api } from '../../http/types.ts';
import { AppError } from '../../shared/errors.ts';
import { IMAGE_TYPES } from './images.ts';
import { File, FileParams, MAX_FILE_BYTES, UploadBody } from './schema.ts';
import { type FileServices, getFile, uploadFile } from './service.ts';

const tags = ['Files'];

/** The file endpoints, with what uploads are kept, checked and linked with; they log through the server's logger. */
export async function fileRoutes(api: Api, services: Omit<FileServices, 'log'>): Promise<void> {
  const withLog: FileServices = { ...services, log: api.log };
  // Image bodies are accepted here only (this plugin is its own scope), up to the route's limit.
  api.addContentTypeParser(IMAGE_TYPES, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  // A tenant with too many uploads waiting for their check may retry as soon as one is done.
  api.setErrorHandler((error: FastifyError | AppError, _request, reply) => {
    if (error instanceof AppError && error.code === 'rate_limited' && !reply.hasHeader('Retry-After')) {
      reply.header('Retry-After', 1);
    }
    throw error;
  });

  api.post(
    '/v0/files',
    {
      bodyLimit: MAX_FILE_BYTES,
      // The body is raw bytes, which the service checks; its schema is there to document them.
      validatorCompiler: () => () => true,
      schema: {
        tags,
        operationId: 'uploadFile',
        summary: 'Upload a file',
        description: `The body is the file's raw bytes, with \`Content-Type\` ${IMAGE_TYPES.join(', ')}; at most 10 MiB (413). The bytes must be what the type says (magic bytes; an SVG must be a well-formed XML document with an \`<svg>\` root in the SVG namespace, whatever it contains), else 415; 429 when the tenant already has 8 uploads waiting for their check. A WebP preview of at most 512×512 is made in the background when the image can be decoded within 10 s: \`previewDownloadUrl\` is null until then (read the file again).`,
        consumes: IMAGE_TYPES,
        body: UploadBody,
        response: { 201: File },
      },
    },
    async (request, reply) => {
      const file = await uploadFile(request.tenantDb, withLog, {
        contentType: request.headers['content-type'],
        body: request.body,
      });
      return reply.code(201).header('Location', `/v0/files/${file.fileId}`).send(file);
    },
  );

  api.get(
    '/v0/files/:file_id',
    {
      schema: {
        tags,
        operationId: 'getFile',
        summary: 'Get a file',
        description: 'Its metadata and fresh signed download links, valid for 1 hour.',
        params: FileParams,
        response: { 200: File },
      },
    },
    (request) => getFile(request.tenantDb, services, request.params.file_id),
  );
}
