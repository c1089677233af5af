import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

const DESCRIPTION = `Tailor keeps marketing pages, generates a personalized version of a page for each audience,
serves those versions through page links, measures each audience's sessions and reports what happened
through signed webhooks.

Every /v0 endpoint except /v0/public/* needs an API key in the \`x-api-key\` header. Errors are RFC 9457
problem details (\`application/problem+json\`) with a stable \`code\`. Timestamps are "+" followed by Unix
epoch milliseconds. Lists are keyset-paginated: pass \`nextCursor\` back as \`cursor\`. Every POST accepts an
\`Idempotency-Key\` header. Responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`.`;

/** The OpenAPI document, generated from the same schemas that validate requests, and its reference page. */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Tailor API', version: '0', description: DESCRIPTION },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/v0/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
