import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { buildServers } from './app.ts';
import { backgroundWork } from './background.ts';
import type { Config } from './config.ts';
import { type Database, openDatabase } from './db/connection.ts';
import { migrateDatabase } from './db/migrate.ts';
import { type Logger, Worker } from './jobs/worker.ts';
import { ImagePool } from './resources/files/image-pool.ts';
import type { FileStorage } from './resources/files/storage.ts';
import { resolveSecret } from './secret.ts';
import { recordServer } from './server-record.ts';
import { PagesOrigin } from './shared/pages-origin.ts';
import { Signer } from './shared/signing.ts';
import { createFileStorage } from './storage.ts';
import { bootstrapDefaultTenant, type TenantWithKey } from './workflows/tenant-setup/service.ts';

function printBanner(tenant: TenantWithKey, fromEnvironment: boolean, config: Config): void {
  const { publicUrl } = config;
  const line = '='.repeat(72);
  const keyLine = fromEnvironment
    ? '  API key: the value of TAILOR_BOOTSTRAP_API_KEY'
    : `  API key: ${tenant.apiKey}`;
  process.stdout.write(
    [
      line,
      `  Tailor created tenant "${tenant.slug}" (${tenant.tenantId}) and its first API key.`,
      keyLine,
      '  It is shown only this once and stored only as a hash: keep it now.',
      '  Send it as the x-api-key header, e.g.',
      `    curl -H "x-api-key: <key>" ${publicUrl}/v0/accounts/search`,
      `  Console: ${publicUrl}/console (sign in with the key)`,
      `  API reference: ${publicUrl}/docs`,
      `  Public pages: ${new PagesOrigin(config.pagesUrl).baseOf(tenant.slug)}/{link path}`,
      line,
      '',
    ].join('\n'),
  );
}

/** How long a node that starts while its database is away waits before trying it again. */
const DATABASE_RETRY_MS = 1_000;

/**
 * Opens the database and brings its schema up to date; on an empty database, creates tenant
 * `default`. A database that cannot be reached yet is waited for, so that a node may start before
 * its database does (or while it restarts) and come up by itself when it is back.
 */
export async function prepareDatabase(config: Config): Promise<Database> {
  const database = openDatabase(config);
  const logger = pino({ level: config.logLevel });
  for (;;) {
    try {
      await migrateDatabase(config);
      const created = await bootstrapDefaultTenant(database, config.bootstrapApiKey);
      if (created) printBanner(created, config.bootstrapApiKey !== undefined, config);
      return database;
    } catch (error) {
      if (!database.isUnavailable(error)) throw error;
      logger.warn({ err: error }, 'database unavailable; waiting for it');
      await sleep(DATABASE_RETRY_MS);
    }
  }
}

/**
 * Exits 0 on the first SIGTERM or SIGINT, after running the stop that `onStop` set. Listening
 * starts before the node does, so that a node told to stop while it is still starting (waiting for
 * its database, migrating) stops at once and cleanly: it has acknowledged nothing yet.
 */
function stopOnSignal(logger: Logger): { onStop(stop: () => Promise<unknown>): void } {
  let stop: (() => Promise<unknown>) | undefined;
  let stopping = false;
  const handle = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, stop ? 'draining' : 'stopped while starting');
    await stop?.();
    process.exit(0);
  };
  process.once('SIGTERM', () => void handle('SIGTERM'));
  process.once('SIGINT', () => void handle('SIGINT'));
  return {
    onStop(drain) {
      stop = drain;
    },
  };
}

function workerFor(
  config: Config,
  database: Database,
  storage: FileStorage,
  logger: Logger,
  concurrency: number,
) {
  return new Worker({
    database,
    ...backgroundWork(config, storage),
    logger,
    concurrency,
    pollMs: config.workerPollMs,
  });
}

/** Runs background work only, until SIGTERM or SIGINT; then finishes the jobs it has and exits. */
export async function work(config: Config): Promise<void> {
  const logger = pino({ level: config.logLevel });
  const signals = stopOnSignal(logger);
  const database = await prepareDatabase(config);
  const worker = workerFor(
    config,
    database,
    await createFileStorage(config),
    logger,
    Math.max(1, config.workers),
  );
  signals.onStop(async () => {
    await worker.stop();
    await database.close();
  });
  worker.start();
  logger.info({ workerId: worker.id }, 'worker started');
}

/** Serves the API until SIGTERM or SIGINT, then drains: no new connections, in-flight requests finish. */
export async function serve(config: Config): Promise<void> {
  const signals = stopOnSignal(pino({ level: config.logLevel }));
  const database = await prepareDatabase(config);
  const storage = await createFileStorage(config);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    : undefined;
  redis?.on('error', () => {});
  const { api: app, pages } = await buildServers({
    database,
    signer: new Signer(resolveSecret(config)),
    storage,
    images: new ImagePool(),
    publicUrl: config.publicUrl,
    pages: new PagesOrigin(config.pagesUrl),
    allowPrivateWebhooks: config.webhookAllowPrivate,
    webhookTimeoutMs: config.webhookTimeoutMs,
    rateLimitRps: config.rateLimitRps,
    publicRateLimitRps: config.publicRateLimitRps,
    publicVisitorsPerHour: config.publicVisitorsPerHour,
    authFailureRps: config.authFailureRps,
    trustProxy: config.trustProxy,
    redis,
    logger: { level: config.logLevel },
    metricsToken: config.metricsToken,
  });
  const worker =
    config.workers > 0 ? workerFor(config, database, storage, app.log, config.workers) : undefined;
  let forgetServer = () => {};
  signals.onStop(async () => {
    forgetServer();
    app.draining = true;
    pages.draining = true;
    await Promise.all([app.close(), pages.close(), worker?.stop()]);
    redis?.disconnect();
    await database.close();
  });
  await app.listen({ host: config.host, port: config.port });
  await pages.listen({ host: config.host, port: config.pagesPort });
  forgetServer = recordServer(config);
  worker?.start();
}
