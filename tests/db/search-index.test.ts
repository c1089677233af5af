import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { onPostgres, testDatabase } from '../helpers/server.ts';

let database: Database;

beforeAll(async () => {
  database = await testDatabase();
  await migrateToLatest(database);
});
afterAll(() => database.close());

/** The database's plan for an account search, with sequential scans discouraged on PostgreSQL. */
async function planOf(query: string): Promise<string> {
  const where = database.dialect.substringMatch('accounts', ['name', 'domain'], query);
  const compiled = database.acrossTenants.selectFrom('accounts').select('id').where(where).compile();
  return database.acrossTenants.transaction().execute(async (trx) => {
    // A small test table is cheaper to scan; the question here is whether the index can serve.
    if (onPostgres) await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    const explain = onPostgres ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
    const result = await trx.executeQuery({ ...compiled, sql: explain + compiled.sql });
    return JSON.stringify(result.rows);
  });
}

describe('substring search index', () => {
  it('serves account search from the trigram index, not a scan', async () => {
    const plan = await planOf('widget');
    if (onPostgres) {
      expect(plan).toContain('accounts_name_trgm');
      expect(plan).toContain('accounts_domain_trgm');
      expect(plan).not.toContain('Seq Scan');
    } else {
      expect(plan).toContain('VIRTUAL TABLE INDEX');
      expect(plan).not.toMatch(/SCAN accounts\b(?!_fts)/);
    }
  });
});
