import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { type Database, openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { TenantDb } from '../src/db/tenant-db.ts';
import { LocalDiskStorage } from '../src/resources/files/storage.ts';
import type { Page } from '../src/resources/pages/schema.ts';
import { createPage } from '../src/resources/pages/service.ts';
import { Signer } from '../src/shared/signing.ts';
import { resourceNeeds } from '../src/wiring.ts';
import { createTenantWithKey, type TenantWithKey } from '../src/workflows/tenant-setup/service.ts';

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
  const database = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  await migrateToLatest(database);
  const tenant = await createTenantWithKey(database, { name: `${name} ${Date.now()}` });
  return { dataDir, database, tenant, db: database.forTenant(tenant.tenantId) };
}

/** A page with nothing on it, for sessions to belong to. */
export function benchPage(db: TenantDb): Promise<Page> {
  const input = {
    name: 'Bench',
    pageContext: 'Bench.',
    brandId: 'b',
    actions: [],
    actionCardWidgets: [],
    scripts: [],
  };
  return createPage(db, input, resourceNeeds({ signer: new Signer(SECRET), publicUrl: '' }).pages.images);
}

/**
 * Builds the hourly rollups (per audience, hour and arm) that ingestion keeps, in one pass over the
 * tenant's seeded sessions, and refreshes the planner's statistics.
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
    FROM sessions WHERE tenant_id = ${tenant.tenantId} GROUP BY tenant_id, audience_id, ${hour}, arm`.execute(
    database.acrossTenants,
  );
  await refreshStatistics(database);
}

/** What the hourly statistics refresh (SQLite) or autovacuum (PostgreSQL) does in a running deployment. */
export async function refreshStatistics(database: Database): Promise<void> {
  await sql
    .raw(database.dialect.name === 'sqlite' ? 'PRAGMA optimize=0x10002' : 'ANALYZE')
    .execute(database.acrossTenants);
}

/** Starts the server on loopback, without rate limits; answers its address and how to stop it all. */
export async function serveBench({
  database,
  dataDir,
}: Bench): Promise<{ url: string; close(): Promise<void> }> {
  const app = await buildApp({
    database,
    signer: new Signer(SECRET),
    storage: new LocalDiskStorage(path.join(dataDir, 'files')),
    publicUrl: 'http://127.0.0.1',
    rateLimitRps: 0,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    async close() {
      await app.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
