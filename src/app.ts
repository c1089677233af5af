import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { DEFAULT_VISITORS_PER_HOUR, DEFAULT_WEBHOOK_TIMEOUT_MS } from './config.ts';
import type { Database } from './db/connection.ts';
import { requireApiKey } from './http/auth.ts';
import { acceptJsonBodies } from './http/bodies.ts';
import { clientLimits, refuseLongUrl } from './http/client-errors.ts';
import { consoleRoutes, rootRedirect } from './http/console.ts';
import { drainOnShutdown, refuseWhileDraining } from './http/draining.ts';
import { registerErrorHandling } from './http/errors.ts';
import { guideRoutes } from './http/guides.ts';
import { healthRoutes } from './http/health.ts';
import { idempotentPosts } from './http/idempotency.ts';
import { type LoggerSetting, requestLogging } from './http/logging.ts';
import { countRequests, type Metrics, registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { refuseMalformedPathParameters } from './http/path-parameters.ts';
import { createRateLimit, type RateLimit } from './http/rate-limit.ts';
import { Problem } from './http/schemas.ts';
import { refuseUnsafeText } from './http/text.ts';
import type { Api } from './http/types.ts';
import { validatorCompiler } from './http/validation.ts';
import { createVisitorLimits, type VisitorLimits } from './public/limits.ts';
import { publicRoutes } from './public/routes.ts';
import { accountRoutes } from './resources/accounts/routes.ts';
import { KeyCache } from './resources/api-keys/cache.ts';
import { keyAuthenticator } from './resources/api-keys/service.ts';
import { assetRoutes } from './resources/assets/routes.ts';
import { brandRoutes } from './resources/brands/routes.ts';
import {
  createDownloadLimits,
  type DownloadLimits,
  fileDownloadRoutes,
} from './resources/files/download-routes.ts';
import type { ImagePool } from './resources/files/image-pool.ts';
import { fileRoutes } from './resources/files/routes.ts';
import type { FileStorage } from './resources/files/storage.ts';
import { formSubmissionRoutes } from './resources/forms/routes.ts';
import { pageLinkRoutes } from './resources/page-links/routes.ts';
import { pageRoutes } from './resources/pages/routes.ts';
import { personLogRoutes } from './resources/persons/log-routes.ts';
import { personRoutes } from './resources/persons/routes.ts';
import { sessionRoutes } from './resources/sessions/routes.ts';
import { tenantDomainCheckRoutes, tenantDomainRoutes } from './resources/tenant-domains/routes.ts';
import { tenantRoutes } from './resources/tenants/routes.ts';
import { topicRoutes } from './resources/topics/routes.ts';
import { webhookDeliveries } from './resources/webhooks/metrics.ts';
import { webhookRoutes } from './resources/webhooks/routes.ts';
import type { PagesOrigin } from './shared/pages-origin.ts';
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
  /** Absolute base of the links the API hands out (its own address). */
  publicUrl: string;
  /** Where tenants' pages are served: the pages origin (TAILOR_PAGES_URL). */
  pages: PagesOrigin;
  /** Lets webhook URLs point at loopback and private networks. */
  allowPrivateWebhooks?: boolean;
  /** How long a receiver may take to answer a test delivery (TAILOR_WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs?: number;
  rateLimitRps: number;
  /** Requests per second per client IP on the public side (file downloads counted apart); 0 turns the limits off. */
  publicRateLimitRps?: number;
  /** Visitors one client address stands for per hour (see public/limits.ts); 0 turns those limits off. */
  publicVisitorsPerHour?: number;
  /** Failed authentications per second per client IP (burst four times that); 0 turns the limit off. */
  authFailureRps?: number;
  /**
   * The reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For is believed, hop by hop
   * from the right: the client address of every per-IP limit is the first hop not among them.
   */
  trustProxy?: string[];
  redis?: Redis;
  logger?: boolean | LoggerSetting;
  /** The bearer token GET /metrics requires; without one it answers loopback clients only. */
  metricsToken?: string;
  /** Checks uploaded images and makes their previews; the API server closes it when it closes. */
  images: ImagePool;
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
  const keyChanges = options.database.watchChanges('api_keys');
  api.addHook('onClose', () => keyChanges.close());
  const keys = new KeyCache(keyChanges);
  requireApiKey(api, {
    database: options.database,
    authenticate: keyAuthenticator(options.database.acrossTenants(), keys),
    failures,
  });
  const rateLimit = createRateLimit({
    perSecond: options.rateLimitRps,
    burst: options.rateLimitRps * 2,
    name: 'key',
    counts: 'requests',
    redis: options.redis,
  });
  // Without a limit (TAILOR_RATE_LIMIT_RPS=0) there is nothing to count: no hook at all.
  if (options.rateLimitRps > 0) {
    api.addHook('onRequest', async (request, reply) => {
      if (request.caller) await rateLimit.take(request.caller.keyId, reply);
    });
  }
  idempotentPosts(api);
  api.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimited: true };
    route.schema = {
      ...route.schema,
      response: { ...(route.schema?.response as object), '4XX': Problem, '5XX': Problem },
    };
  });
  const needs = resourceNeeds(options);
  const { database, storage, images, signer, publicUrl } = options;
  await api.register(tenantRoutes, { ...needs.tenants, database });
  await api.register(tenantDomainRoutes, needs.tenantDomains);
  await api.register(accountRoutes);
  await api.register(accountViewRoutes);
  await api.register(personRoutes, needs.persons);
  await api.register(personLogRoutes);
  await api.register(pageRoutes, needs.pages);
  await api.register(brandRoutes, needs.brands);
  await api.register(topicRoutes);
  await api.register(fileRoutes, { database, storage, images, signer, publicUrl });
  await api.register(assetRoutes, needs.assets);
  await api.register(pageLinkRoutes, needs.pageLinks);
  await api.register(audienceRoutes);
  await api.register(previewRoutes, { signer, publicUrl });
  await api.register(webhookRoutes, {
    allowPrivate: options.allowPrivateWebhooks ?? false,
    testTimeoutMs: options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
  });
  await api.register(sessionRoutes, needs.sessions);
  await api.register(formSubmissionRoutes);
}

/**
 * What every listener of the service shares: request ids, validation, JSON bodies, refusing unsafe
 * text and long URLs, problem+json errors, draining on SIGTERM.
 */
function baseServer(options: AppOptions) {
  const app = Fastify({
    ...requestLogging(options.logger),
    bodyLimit: BODY_LIMIT,
    trustProxy: options.trustProxy?.length ? options.trustProxy : false,
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    // Draining answers its own 503 problem (http/draining.ts) rather than Fastify's plain one.
    return503OnClosing: false,
    ...clientLimits(),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('signer', options.signer);
  app.setValidatorCompiler(validatorCompiler);
  acceptJsonBodies(app, BODY_LIMIT);
  refuseUnsafeText(app);
  refuseMalformedPathParameters(app);
  registerErrorHandling(app, (error) => options.database.isUnavailable(error));
  drainOnShutdown(app);
  // One hook for what every request of either listener is checked for as it arrives (each hook is a
  // turn of Fastify's hook runner per request), written with `done`, not async: no promise per request.
  // The request id is set first, so that every refusal carries it.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    refuseWhileDraining(app);
    refuseLongUrl(request);
    done();
  });
  return app;
}

/** The limits of the public side: one set for both listeners, so that a visitor has one budget. */
interface PublicLimits {
  publicRateLimit: RateLimit;
  visitorLimits: VisitorLimits;
  downloads: DownloadLimits;
}

function publicLimitsOf(options: AppOptions): PublicLimits {
  return {
    publicRateLimit: createRateLimit({
      perSecond: options.publicRateLimitRps ?? 0,
      burst: (options.publicRateLimitRps ?? 0) * 2,
      name: 'ip',
      counts: 'requests',
      redis: options.redis,
    }),
    visitorLimits: createVisitorLimits({
      enabled: (options.publicRateLimitRps ?? 0) > 0,
      visitorsPerHour: options.publicVisitorsPerHour ?? DEFAULT_VISITORS_PER_HOUR,
      redis: options.redis,
    }),
    downloads: createDownloadLimits({ perAddressRps: options.publicRateLimitRps ?? 0, redis: options.redis }),
  };
}

/**
 * The API origin: the keyed /v0 API, its document and reference, the console, health and metrics,
 * and /v0/public/* (page addresses answer 308 to the pages origin).
 */
export async function buildApp(
  options: AppOptions,
  limits = publicLimitsOf(options),
): Promise<FastifyInstance> {
  const app = baseServer(options);
  app.addHook('onClose', () => options.images.close());
  registerMetrics(app, {
    database: options.database,
    token: options.metricsToken,
    gauges: [webhookDeliveries],
  });
  await registerOpenApi(app, options.publicUrl, webhookPathItems());
  await app.register((scope: Api) => healthRoutes(scope, options.database));
  await app.register(consoleRoutes, { prefix: '/console' });
  await app.register(guideRoutes);
  await app.register(rootRedirect);
  await app.register((api: Api) => apiScope(api, options));
  await registerPublicSide(app, options, { servesPages: false, limits });
  return app;
}

/** What needs no API key, on either origin: every request carries its own signed credential, or none. */
async function registerPublicSide(
  app: Api,
  { database, signer, storage, pages, publicUrl }: AppOptions,
  { servesPages, limits }: { servesPages: boolean; limits: PublicLimits },
) {
  await app.register(fileDownloadRoutes, { limits: limits.downloads, signer, storage, database });
  await app.register(tenantDomainCheckRoutes, { database });
  await app.register(publicRoutes, {
    apiUrl: publicUrl,
    pages,
    servesPages,
    database,
    signer,
    rateLimit: limits.publicRateLimit,
    visitorLimits: limits.visitorLimits,
  });
}

/**
 * The pages origin (decisions §6): tenants' pages, by Host and path, and /v0/public/*; nothing
 * else. It counts its requests in the API's metrics and shares its per-IP limit, so that a visitor
 * has one budget across both origins.
 */
export async function buildPagesApp(
  options: AppOptions,
  shared: { metrics: Metrics; limits: PublicLimits },
): Promise<FastifyInstance> {
  const app = baseServer(options);
  countRequests(app, shared.metrics);
  await registerPublicSide(app, options, { servesPages: true, limits: shared.limits });
  return app;
}

/** Both listeners of `tailor serve`: the API origin and the pages origin. */
export async function buildServers(
  options: AppOptions,
): Promise<{ api: FastifyInstance; pages: FastifyInstance }> {
  const limits = publicLimitsOf(options);
  const api = await buildApp(options, limits);
  const pages = await buildPagesApp(options, { metrics: api.metrics, limits });
  return { api, pages };
}
