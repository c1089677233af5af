import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildServers } from '../src/app.ts';
import { type Database, openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { TenantDb } from '../src/db/tenant-db.ts';
import { ImagePool } from '../src/resources/files/image-pool.ts';
import { LocalDiskStorage } from '../src/resources/files/storage.ts';
import type { Page } from '../src/resources/pages/schema.ts';
import { createPage } from '../src/resources/pages/service.ts';
import { PagesOrigin } from '../src/shared/pages-origin.ts';
import { Signer } from '../src/shared/signing.ts';
import { resourceNeeds } from '../src/wiring.ts';
import { createTenantWithKey, type TenantWithKey } from '../src/workflows/tenant-setup/service.ts';
import { anyTables } from '../tests/helpers/any-tables.ts';
import { onCore, SERVER_CORE, stopChild, type Target } from './harness.ts';

// What every benchmark stands on: a database (PostgreSQL with DATABASE_URL, else SQLite in a temp
// directory) with one fresh tenant, the server on loopback, and the cleanup.

const SECRET = 'bench-secret-bench-secret-bench-secret-00';
const HOUR = 3_600_000;

export interface Bench {
  dataDir: string;
  database: Database;
  tenant: TenantWithKey;
  db: TenantDb;
}

export async function openBench(name: string): Promise<Bench> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-bench-'));
  // Seeding runs statements over millions of rows: no statement deadline here.
  const database = openDatabase({
    databaseUrl: process.env.DATABASE_URL,
    dataDir,
    unboundedStatements: true,
  });
  await migrateToLatest(database);
  const tenant = await createTenantWithKey(database, { name: `${name} ${Date.now()}` });
  return { dataDir, database, tenant, db: database.forTenant(tenant.tenantId) };
}

/** A page with nothing on it, for sessions to belong to. */
export function benchPage({ db, database }: Bench): Promise<Page> {
  const input = {
    name: 'Bench',
    pageContext: 'Bench.',
    brandId: 'b',
    actions: [],
    actionCardWidgets: [],
    scripts: [],
  };
  const needs = resourceNeeds({
    signer: new Signer(SECRET),
    publicUrl: 'http://127.0.0.1',
    database,
    pages: new PagesOrigin('http://127.0.0.1'),
  });
  return createPage(db, input, needs.pages.images);
}

/**
 * Builds the hourly rollups (per audience, hour and arm) that ingestion keeps, in one pass over the
 * tenant's seeded sessions, hour after hour as ingestion writes them (so rows lie in the tables as
 * they would); the database's triggers add each to its day's rollup. On PostgreSQL each of those
 * additions left a dead version of its day's row, which a deployment's autovacuum clears as it goes
 * (and this one may run without it): the table is compacted as a deployment keeps it. Then
 * refreshes the planner's statistics.
 */
export async function rollUpSessions({ database, tenant }: Bench): Promise<void> {
  const hour = sql.raw(`(started_at / ${HOUR}) * ${HOUR}`);
  await sql`INSERT INTO audience_hourly_stats (tenant_id, audience_id, hour, arm, sessions, interactions,
      scroll_depth_sum, time_spent_ms_sum, bounces, conversions, cta_sessions, form_submit_sessions)
    SELECT tenant_id, audience_id, ${hour}, arm, count(*), sum(interactions), sum(max_scroll_depth),
      sum(time_spent_ms),
      sum(CASE WHEN interactions = 0 AND cta_clicks = 0 AND form_submits = 0 AND time_spent_ms < 10000 THEN 1 ELSE 0 END),
      sum(CASE WHEN cta_clicks > 0 OR form_submits > 0 THEN 1 ELSE 0 END),
      sum(CASE WHEN cta_clicks > 0 THEN 1 ELSE 0 END), sum(CASE WHEN form_submits > 0 THEN 1 ELSE 0 END)
    FROM sessions WHERE tenant_id = ${tenant.tenantId} GROUP BY tenant_id, audience_id, ${hour}, arm
    ORDER BY ${hour}, audience_id, arm`.execute(anyTables(database));
  if (database.engine === 'postgres') {
    await sql`VACUUM FULL audience_daily_stats`.execute(anyTables(database));
  }
  await refreshStatistics(database);
}

/** What the hourly statistics refresh (SQLite) or autovacuum (PostgreSQL) does in a running deployment. */
export async function refreshStatistics(database: Database): Promise<void> {
  await sql
    .raw(database.engine === 'sqlite' ? 'PRAGMA optimize=0x10002' : 'ANALYZE')
    .execute(anyTables(database));
}

export interface Served {
  /** The API origin. */
  url: string;
  /** The pages origin: public pages and /v0/public/*. */
  pagesUrl: string;
  close(): Promise<void>;
}

/** Starts the server on loopback, without rate limits; answers its addresses and how to stop it all. */
export async function serveBench({ database, dataDir }: Bench): Promise<Served> {
  const pagesPort = await freePort();
  const pagesUrl = `http://127.0.0.1:${pagesPort}`;
  const { api, pages } = await buildServers({
    database,
    signer: new Signer(SECRET),
    storage: new LocalDiskStorage(path.join(dataDir, 'files')),
    images: new ImagePool(),
    publicUrl: 'http://127.0.0.1',
    pages: new PagesOrigin(pagesUrl),
    rateLimitRps: 0,
  });
  const url = await api.listen({ host: '127.0.0.1', port: 0 });
  await pages.listen({ host: '127.0.0.1', port: pagesPort });
  return {
    url,
    pagesUrl,
    async close() {
      await Promise.all([api.close(), pages.close()]);
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const BIN = path.join(import.meta.dirname, '..', 'bin', 'tailor.js');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

async function whenReady(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`tailor serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('tailor serve did not become ready');
}

/**
 * Starts `tailor serve` on the bench's database as a deployment runs it (its own process, its
 * worker, request logging at `info` into a file as a log collector would take it), without rate
 * limits; pinned to CPU 0 with taskset where there is one, the load generator taking CPU 1.
 */
export async function serveProcess({ database, dataDir }: Bench): Promise<Served & { pid: number }> {
  const port = await freePort();
  const pagesPort = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    TAILOR_PAGES_PORT: String(pagesPort),
    HOST: '127.0.0.1',
    TAILOR_DATA_DIR: dataDir,
    TAILOR_SECRET: SECRET,
    TAILOR_RATE_LIMIT_RPS: '0',
    TAILOR_PUBLIC_RATE_LIMIT_RPS: '0',
  };
  const log = fs.openSync(path.join(dataDir, 'server.log'), 'a');
  // BENCH_CPU_PROF=<dir>: the server writes a CPU profile there when it stops (see bench/profile.ts).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const [command, ...args] = onCore(SERVER_CORE, [process.execPath, ...profile, BIN, 'serve']);
  const child = spawn(command as string, args, { env, stdio: ['ignore', log, log] });
  const url = `http://127.0.0.1:${port}`;
  await whenReady(url, child);
  return {
    url,
    pagesUrl: `http://127.0.0.1:${pagesPort}`,
    pid: child.pid as number,
    async close() {
      await stopChild(child);
      fs.closeSync(log);
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON over HTTP as the bench tenant: answers the body, throws on an unexpected status. */
export function apiAs(url: string, apiKey: string) {
  return async function call<T>(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    expected = [200, 201],
  ): Promise<T> {
    const response = await fetch(`${url}${pathAndQuery}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!expected.includes(response.status))
      throw new Error(`${method} ${pathAndQuery}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}

/** A published page whose audience has a published personalized version, served by a page link. */
export interface LinkedBenchPage {
  pageId: string;
  audienceId: string;
  /** From /p on. */
  path: string;
}

/**
 * Makes a LinkedBenchPage through the API of a server that runs its worker, waiting for the built-in
 * personalizer to write version 1 before publishing it.
 */
export async function linkedBenchPage(
  url: string,
  { tenant }: Bench,
  existingPageId?: string,
): Promise<LinkedBenchPage> {
  const api = apiAs(url, tenant.apiKey);
  const pageId = existingPageId ?? (await newLinkablePage(api));
  await api('POST', `/v0/pages/${pageId}/publish`, {});
  const person = await api<{ personId: string }>('POST', '/v0/persons', {
    name: 'Dana Reyes',
    email: 'dana@northwind.example',
  });
  const { audienceId } = await api<{ audienceId: string }>('POST', `/v0/pages/${pageId}/audiences`, {
    personId: person.personId,
  });
  for (let attempt = 0; ; attempt++) {
    const answer = await api<unknown>(
      'POST',
      `/v0/pages/${pageId}/audiences/${audienceId}/publish`,
      {},
      [200, 409],
    );
    // A 409 answers a problem, whose `status` is a number; an audience's is a word.
    if (typeof (answer as { status: unknown }).status !== 'number') break;
    if (attempt > 300) throw new Error('version 1 was not written');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const path = '/spring/northwind';
  await api('POST', '/v0/page_links', { path, target: { targetType: 'audience', audienceId } });
  return { pageId, audienceId, path: `/p/${tenant.slug}${path}` };
}

async function newLinkablePage(api: ReturnType<typeof apiAs>): Promise<string> {
  const { pageId } = await api<{ pageId: string }>('POST', '/v0/pages', {
    name: 'Spring launch',
    pageContext:
      'Brightwave helps retailers grow with analytics. It personalizes every page for every account.',
    brandId: 'brightwave',
    actions: [
      { actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'link', url: 'https://example.com/demo' },
      { actionId: 'contact', buttonTitle: 'Talk to sales', actionType: 'form' },
    ],
    headerActionId: 'contact',
    actionCardWidgets: [],
    scripts: [],
  });
  return pageId;
}

/** The signed token that the public page at `path` carries for its visitors' events. */
export async function tokenOf(pagesUrl: string, path: string): Promise<string> {
  const html = await (await fetch(`${pagesUrl}${path}`)).text();
  const token = html.match(/data-tailor-token="([^"]+)"/)?.[1];
  if (!token) throw new Error(`the page at ${path} carries no token`);
  return token;
}

/** What the events bench sends under a page link's `token`: a new session of 4 events per request. */
export function newSessionEvents(token: string): Target {
  const at = Date.now();
  const events = [
    { type: 'session_start', at },
    { type: 'scroll', at: at + 900, depth: 60 },
    { type: 'interaction', at: at + 2_000 },
    { type: 'time', at: at + 5_000, ms: 5_000 },
  ];
  return {
    method: 'POST',
    path: '/v0/public/events',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, sessionId: 'bench-session-[<n>]', events }),
  };
}

/** What the person-create bench sends with `apiKey`: a new email each, over 100 account domains. */
export function newPersons(apiKey: string): Target {
  return {
    method: 'POST',
    path: '/v0/persons',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: '{"name":"Dana Reyes [<n>]","email":"dana.[<n>]@northwind-[<n%100>].example"}',
  };
}
