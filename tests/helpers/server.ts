import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, expect } from 'vitest';
import { buildServers } from '../../src/app.ts';
import { type BackgroundWork, backgroundWork } from '../../src/background.ts';
import { loadConfig } from '../../src/config.ts';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { JobHandler } from '../../src/jobs/queue.ts';
import type { JobContext } from '../../src/jobs/types.ts';
import { Worker, type WorkerOptions } from '../../src/jobs/worker.ts';
import { ImagePool } from '../../src/resources/files/image-pool.ts';
import { type FileStorage, LocalDiskStorage } from '../../src/resources/files/storage.ts';
import { PagesOrigin } from '../../src/shared/pages-origin.ts';
import { Signer } from '../../src/shared/signing.ts';
import { createTenantWithKey } from '../../src/workflows/tenant-setup/service.ts';

export const onPostgres = process.env.TEST_DB === 'postgres';
export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** The body of an answer, once its status is `status`; else the test fails, saying the body. */
export async function ok(response: Promise<Response>, status = 200): Promise<any> {
  const answer = await response;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}

/** Talks to a running server over HTTP as one API key. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | undefined,
    readonly tenantId: string,
  ) {}

  async request<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}) };
    let body: string | Buffer | undefined = options.raw;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${this.baseUrl}${url}`, {
      method,
      headers: { ...headers, ...options.headers },
      body,
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      headers: response.headers,
      body: (type.includes('json') && text ? JSON.parse(text) : text) as T,
    };
  }

  get<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('GET', url, options);
  }
  post<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', url, { ...options, body });
  }
  patch<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', url, { ...options, body });
  }
  delete<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('DELETE', url, options);
  }

  /** The same tenant, another key (or none). */
  as(apiKey: string | undefined): Client {
    return new Client(this.baseUrl, apiKey, this.tenantId);
  }
}

export interface TestServer {
  /** The API origin. */
  url: string;
  /** The pages origin: public pages and /v0/public/*. */
  pagesUrl: string;
  app: FastifyInstance;
  /** The pages origin's server. */
  pagesApp: FastifyInstance;
  database: Database;
  storage: FileStorage;
  /** The API server's pool of image checks and previews (closed with it): tests wait for it to be idle. */
  images: ImagePool;
  /** The context a job or scheduled task runs with, at `now` (default: the present). */
  jobContext(now?: number): JobContext;
  /** The service's job handlers and scheduled tasks, configured by the server's environment and `env`. */
  background(env?: Record<string, string>): BackgroundWork;
  /** Every job handler of the service, with `handler` in place of the one of its kind. */
  handlersWith(handler: JobHandler): JobHandler[];
  /**
   * A worker with every handler and scheduled task of the service; start it, or drain it. `env`
   * configures it as that environment would a node.
   */
  worker(options?: Partial<WorkerOptions> & { env?: Record<string, string> }): Worker;
  /** A fresh tenant with its own key: tests stay independent on a shared database. */
  newTenant(): Promise<Client>;
  anonymous(): Client;
  /** No key, on the pages origin: what a visitor's browser talks to. */
  visitor(): Client;
  close(): Promise<void>;
}

export interface ServerOptions {
  rateLimitRps?: number;
  publicRateLimitRps?: number;
  /** TAILOR_PUBLIC_VISITORS_PER_HOUR (the visitor side's limits are on only with publicRateLimitRps). */
  publicVisitorsPerHour?: number;
  authFailureRps?: number;
  /** TAILOR_TRUST_PROXY: the test's own requests come from 127.0.0.1. */
  trustProxy?: string[];
  redis?: Redis;
  /** Lets webhook URLs point at loopback (default true, for local receivers). */
  allowPrivateWebhooks?: boolean;
  /** Environment for the job context (personalizer, webhook settings); webhooks may reach loopback. */
  env?: Record<string, string>;
  /** Another node on this database (closed by its owner). */
  database?: Database;
  /** TAILOR_METRICS_TOKEN. */
  metricsToken?: string;
  /**
   * TAILOR_PAGES_URL, `{port}` standing for the pages origin's port (default: the shared origin
   * http://127.0.0.1:{port}).
   */
  pagesUrl?: string;
  /** How long one image's check or preview may run (10 s unless given). */
  imageTimeLimitMs?: number;
}

/** A port no one listens on now (another process may take it before it is used: rare on loopback). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

let fileDatabase: { url: string; name: string } | undefined;

async function adminQuery(text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/**
 * On PostgreSQL each test file gets a database of its own (next to TEST_DATABASE_URL's), dropped
 * when the file is done: workers take any tenant's due jobs, so files must not share one.
 */
export async function testDatabaseUrl(): Promise<string> {
  if (!fileDatabase) {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    const name = `${url.pathname.slice(1)}_f${randomBytes(5).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
    fileDatabase = { url: url.toString(), name };
  }
  return fileDatabase.url;
}

if (onPostgres) {
  afterAll(async () => {
    if (fileDatabase) await adminQuery(`DROP DATABASE IF EXISTS ${fileDatabase.name} WITH (FORCE)`);
  });
}

export async function testDatabase(): Promise<Database> {
  if (onPostgres) return openDatabase({ databaseUrl: await testDatabaseUrl(), dataDir: '' });
  return openDatabase({
    databaseUrl: undefined,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-test-')),
  });
}

/** Two nodes of one deployment: servers on one database, each through a connection of its own. */
export interface TwoNodes {
  server: TestServer;
  other: TestServer;
  /** Closes both servers, then their connections. */
  close(): Promise<void>;
}

/**
 * Two nodes on this file's database, each through a connection of its own, as two processes of a
 * deployment are: what one keeps in memory the other does not see. `observe` wraps the first node's
 * connection (a query counter).
 */
export async function startTwoNodes(observe = (database: Database) => database): Promise<TwoNodes> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-nodes-'));
  const connect = async () =>
    openDatabase({ databaseUrl: onPostgres ? await testDatabaseUrl() : undefined, dataDir });
  const base = await connect();
  const server = await startServer({ database: observe(base) });
  const otherBase = await connect();
  const other = await startServer({ database: otherBase });
  return {
    server,
    other,
    async close() {
      await other.close();
      await server.close();
      await otherBase.close();
      await base.close();
    },
  };
}

export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await testDatabase());
  await migrateToLatest(database);
  const storage = new LocalDiskStorage(fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-files-')));
  const images = new ImagePool({ timeLimitMs: options.imageTimeLimitMs });
  const pagesPort = await freePort();
  const pagesUrl = (options.pagesUrl ?? 'http://127.0.0.1:{port}').replace('{port}', String(pagesPort));
  const { api: app, pages: pagesApp } = await buildServers({
    database,
    signer: new Signer(TEST_SECRET),
    storage,
    publicUrl: 'http://127.0.0.1',
    pages: new PagesOrigin(pagesUrl),
    rateLimitRps: options.rateLimitRps ?? 0,
    publicRateLimitRps: options.publicRateLimitRps ?? 0,
    publicVisitorsPerHour: options.publicVisitorsPerHour,
    authFailureRps: options.authFailureRps ?? 0,
    trustProxy: options.trustProxy,
    redis: options.redis,
    allowPrivateWebhooks: options.allowPrivateWebhooks ?? true,
    metricsToken: options.metricsToken,
    images,
  });
  const background = (env: Record<string, string> = {}) =>
    backgroundWork(loadConfig({ TAILOR_WEBHOOK_ALLOW_PRIVATE: 'true', ...options.env, ...env }), storage);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  await pagesApp.listen({ host: '127.0.0.1', port: pagesPort });
  return {
    url,
    pagesUrl: `http://127.0.0.1:${pagesPort}`,
    app,
    pagesApp,
    database,
    storage,
    images,
    jobContext: (now = Date.now()) => ({ database, now }),
    background,
    handlersWith: (handler) =>
      background().handlers.map((existing) => (existing.kind === handler.kind ? handler : existing)),
    worker: ({ env, ...overrides } = {}) =>
      new Worker({
        database,
        ...background(env),
        logger: { info() {}, warn() {}, error() {} },
        pollMs: 20,
        ...overrides,
      }),
    async newTenant() {
      const name = `Test ${randomBytes(6).toString('hex')}`;
      const tenant = await createTenantWithKey(database, { name });
      return new Client(url, tenant.apiKey, tenant.tenantId);
    },
    anonymous: () => new Client(url, undefined, ''),
    visitor: () => new Client(`http://127.0.0.1:${pagesPort}`, undefined, ''),
    async close() {
      await Promise.all([app.close(), pagesApp.close()]);
      if (!options.database) await database.close();
    },
  };
}
