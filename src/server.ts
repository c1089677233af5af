import path from 'node:path';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Database, openDatabase } from './db/connection.ts';
import { migrateToLatest } from './db/migrate.ts';
import { JOB_HANDLERS, SCHEDULED_TASKS } from './jobs/registry.ts';
import { Worker } from './jobs/worker.ts';
import { LocalDiskStorage } from './resources/files/storage.ts';
import { bootstrapDefaultTenant, type TenantWithKey } from './resources/tenants/service.ts';
import { resolveSecret } from './secret.ts';
import { Signer } from './signing.ts';

function printBanner(tenant: TenantWithKey, fromEnvironment: boolean, publicUrl: string): void {
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
      `  API reference: ${publicUrl}/docs`,
      line,
      '',
    ].join('\n'),
  );
}

/** Opens the database and brings its schema up to date; on an empty database, creates tenant `default`. */
export async function prepareDatabase(config: Config): Promise<Database> {
  const database = openDatabase(config);
  await migrateToLatest(database);
  const created = await bootstrapDefaultTenant(database.db, database.dialect, config.bootstrapApiKey);
  if (created) printBanner(created, config.bootstrapApiKey !== undefined, config.publicUrl);
  return database;
}

/** Serves the API until SIGTERM or SIGINT, then drains: no new connections, in-flight requests finish. */
export async function serve(config: Config): Promise<void> {
  const database = await prepareDatabase(config);
  const storage = new LocalDiskStorage(path.join(config.dataDir, 'files'));
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    : undefined;
  redis?.on('error', () => {});
  const app = await buildApp({
    database,
    signer: new Signer(resolveSecret(config)),
    storage,
    publicUrl: config.publicUrl,
    rateLimitRps: config.rateLimitRps,
    redis,
    logger: { level: config.logLevel },
  });
  const worker =
    config.workers > 0
      ? new Worker({
          context: { database, storage },
          handlers: JOB_HANDLERS,
          schedules: SCHEDULED_TASKS,
          logger: app.log,
          concurrency: config.workers,
        })
      : undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining');
    app.draining = true;
    await Promise.all([app.close(), worker?.stop()]);
    redis?.disconnect();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
  worker?.start();
}
