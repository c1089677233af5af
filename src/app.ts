import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from './config.ts';
import type { Database } from './db/connection.ts';
import { requireApiKey } from './http/auth.ts';
import { acceptJsonBodies } from './http/bodies.ts';
import { clientLimits, refuseLongUrls } from './http/client-errors.ts';
import { consoleRoutes } from './http/console.ts';
import { registerErrorHandling } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { idempotentPosts } from './http/idempotency.ts';
import { OneLinePerRequest } from './http/logging.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { createRateLimit, type RateLimit } from './http/rate-limit.ts';
import { Problem } from './http/schemas.ts';
import { refuseUnsafeText } from './http/text.ts';
import type { Api } from './http/types.ts';
import { validatorCompiler } from './http/validation.ts';
import { publicRoutes } from './public/routes.ts';
import { accountRoutes } from './resources/accounts/routes.ts';
import { authenticate } from './resources/api-keys/service.ts';
import { assetRoutes } from './resources/assets/routes.ts';
import { brandRoutes } from './resources/brands/routes.ts';
import { fileDownloadRoutes } from './resources/files/download-routes.ts';
import { ImagePool } from './resources/files/image-pool.ts';
import { fileRoutes } from './resources/files/routes.ts';
import type { FileStorage } from './resources/files/storage.ts';
import { pageLinkRoutes } from './resources/page-links/routes.ts';
import { pageRoutes } from './resources/pages/routes.ts';
import { personLogRoutes } from './resources/persons/log-routes.ts';
import { personRoutes } from './resources/persons/routes.ts';
import { sessionRoutes } from './resources/sessions/routes.ts';
import { tenantRoutes } from './resources/tenants/routes.ts';
import { topicRoutes } from './resources/topics/routes.ts';
import { webhookDeliveries } from './resources/webhooks/metrics.ts';
import { webhookRoutes } from './resources/webhooks/routes.ts';
import { AppError } from './shared/errors.ts';
import type { Signer } from './shared/signing.ts';
import { resourceNeeds } from './wiring.ts';
import { accountViewRoutes } from './workflows/account-view/routes.ts';
import { audienceRoutes } from './workflows/audience-versions/routes.ts';
import { webhookPathItems } from './workflows/events/document.ts';
import { previewRoutes } from './workflows/page-view/routes.ts';

export interface AppOptions {
  database: Database;
  signer: Signer;
  storage: FileStorage;
  /** Absolute base of the links the service hands out. */
  publicUrl: string;
  /** Lets webhook URLs point at loopback and private networks. */
  allowPrivateWebhooks?: boolean;
  /** How long a receiver may take to answer a test delivery (TAILOR_WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs?: number;
  rateLimitRps: number;
  /** Requests per second per client IP on the public side (file downloads counted apart); 0 turns the limits off. */
  publicRateLimitRps?: number;
  /** Failed authentications per second per client IP (burst four times that); 0 turns the limit off. */
  authFailureRps?: number;
  redis?: Redis;
  logger?: FastifyServerOptions['logger'];
  /** The bearer token GET /metrics requires; without one it answers loopback clients only. */
  metricsToken?: string;
  /** How long one image's check or preview may run (IMAGE_TIME_LIMIT_MS unless given; tests shorten it). */
  imageTimeLimitMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set on SIGTERM: the server finishes what it has and takes nothing new. */
    draining: boolean;
    storage: FileStorage;
    images: ImagePool;
    publicUrl: string;
    allowPrivateWebhooks: boolean;
    webhookTimeoutMs: number;
    publicRateLimit: RateLimit;
    database: Database;
  }
}

const BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/** Authenticated /v0 routes: API key, rate limit per key, idempotent POSTs, problem responses documented. */
async function apiScope(api: Api, options: AppOptions): Promise<void> {
  const failures = createRateLimit({
    perSecond: options.authFailureRps ?? 0,
    burst: (options.authFailureRps ?? 0) * 4,
    name: 'auth-failure',
    counts: 'failed authentications',
    redis: options.redis,
  });
  requireApiKey(api, {
    database: options.database,
    authenticate: (apiKey) => authenticate(options.database.acrossTenants, apiKey),
    failures,
  });
  const rateLimit = createRateLimit({
    perSecond: options.rateLimitRps,
    burst: options.rateLimitRps * 2,
    name: 'key',
    counts: 'requests',
    redis: options.redis,
  });
  api.addHook('onRequest', async (request, reply) => {
    if (request.caller) await rateLimit.take(request.caller.keyId, reply);
  });
  idempotentPosts(api);
  api.addHook('onRoute', (route) => {
    route.schema = {
      ...route.schema,
      response: { ...(route.schema?.response as object), '4XX': Problem, '5XX': Problem },
    };
  });
  const needs = resourceNeeds(api);
  await api.register(tenantRoutes);
  await api.register(accountRoutes);
  await api.register(accountViewRoutes);
  await api.register(personRoutes, needs.persons);
  await api.register(personLogRoutes);
  await api.register(pageRoutes, needs.pages);
  await api.register(brandRoutes, needs.brands);
  await api.register(topicRoutes);
  await api.register(fileRoutes);
  await api.register(assetRoutes, needs.assets);
  await api.register(pageLinkRoutes, needs.pageLinks);
  await api.register(audienceRoutes);
  await api.register(previewRoutes);
  await api.register(webhookRoutes);
  await api.register(sessionRoutes, needs.sessions);
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    logController: new OneLinePerRequest(),
    bodyLimit: BODY_LIMIT,
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    // Draining answers its own 503 problem (below) rather than Fastify's plain one.
    return503OnClosing: false,
    ...clientLimits(),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('signer', options.signer);
  app.decorate('database', options.database);
  app.decorate('storage', options.storage);
  app.decorate('images', new ImagePool({ timeLimitMs: options.imageTimeLimitMs }));
  app.addHook('onClose', () => app.images.close());
  app.decorate('publicUrl', options.publicUrl);
  app.decorate('allowPrivateWebhooks', options.allowPrivateWebhooks ?? false);
  app.decorate('webhookTimeoutMs', options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS);
  app.decorate(
    'publicRateLimit',
    createRateLimit({
      perSecond: options.publicRateLimitRps ?? 0,
      burst: (options.publicRateLimitRps ?? 0) * 2,
      name: 'ip',
      counts: 'requests',
      redis: options.redis,
    }),
  );
  app.setValidatorCompiler(validatorCompiler);
  acceptJsonBodies(app, BODY_LIMIT);
  refuseUnsafeText(app);
  registerErrorHandling(app, (error) => options.database.isUnavailable(error));
  // While draining, new requests on kept-alive connections are refused and every answer closes its
  // connection, so that clients move to another node and do not hold this process open.
  app.decorate('draining', false);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (app.draining) throw new AppError('unavailable', 'This server is shutting down; retry the request');
  });
  refuseLongUrls(app);
  app.addHook('onSend', async (_request, reply) => {
    if (app.draining) reply.header('connection', 'close');
  });

  registerMetrics(app, {
    database: options.database,
    token: options.metricsToken,
    gauges: [webhookDeliveries],
  });
  await registerOpenApi(app, options.publicUrl, webhookPathItems());
  await app.register((scope: Api) => healthRoutes(scope, options.database));
  await app.register(consoleRoutes, { prefix: '/console' });
  await app.register((api: Api) => apiScope(api, options));
  // Routes that need no API key: their requests carry their own signed credential.
  await app.register(fileDownloadRoutes, {
    perAddressRps: options.publicRateLimitRps ?? 0,
    redis: options.redis,
  });
  await app.register(publicRoutes);
  return app;
}
