import { sql } from 'kysely';
import type { RowCounts } from '../engine.ts';

/**
 * One statement: deletes up to `limit` changes and adds their sums to the counts, so that it
 * commits both at once and a read (one statement, one snapshot) counts each change once. Changes of
 * transactions not committed yet are not seen, and wait for the next fold. Concurrent folds delete
 * disjoint changes (a change deleted by another is skipped once that one commits) and upsert the
 * counts in one order, so they cannot deadlock.
 */
export const postgresRowCounts: RowCounts = {
  appended: true,
  async fold(db, limit) {
    const { rows } = await sql<{ folded: number }>`
      WITH folded AS (
        DELETE FROM tenant_row_count_changes
        WHERE ctid = ANY (ARRAY(SELECT ctid FROM tenant_row_count_changes LIMIT ${limit}))
        RETURNING tenant_id, name, n
      ), added AS (
        INSERT INTO tenant_row_counts (tenant_id, name, n)
        SELECT tenant_id, name, sum(n) FROM folded GROUP BY tenant_id, name ORDER BY tenant_id, name
        ON CONFLICT (tenant_id, name) DO UPDATE SET n = tenant_row_counts.n + excluded.n
      )
      SELECT count(*)::int AS folded FROM folded`.execute(db);
    return rows[0]?.folded ?? 0;
  },
};
