import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/** The tables whose SQLite search index is keyed by the tenant's number and the row's seq (0017, 0019). */
const SEARCHED = ['accounts', 'assets', 'pages', 'persons', 'topic_entries', 'topics'];

/**
 * A search on SQLite bounds the part of its index it reads by the least and greatest seq of the
 * tenant's rows (src/db/sqlite/search.ts). With no index by tenant and seq, SQLite found those by
 * reading every row of the tenant, or by walking the table's seqs down from the greatest, through
 * other tenants' rows: a tenant of one person paid 64–74 ms a search beside one of 300,000 (issue
 * 37). An index of (tenant_id, seq) answers each bound with one seek. PostgreSQL's search does not
 * use seqs.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine !== 'sqlite') return;
  for (const table of SEARCHED) {
    await db.schema.createIndex(`${table}_by_tenant_seq`).on(table).columns(['tenant_id', 'seq']).execute();
  }
}
