import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/** Every searchable table and the columns its search matches, as migrations 0001 to 0004 made them. */
const SEARCHED: Record<string, string[]> = {
  accounts: ['name', 'domain'],
  pages: ['name', 'title'],
  topics: ['title', 'purpose'],
  topic_entries: ['content_text'],
  assets: ['name', 'purpose', 'tags_text'],
};

/**
 * Search indexes whose entries lead with the tenant (see Dialect.createSearchIndex), so that a
 * tenant's matches are counted in the index alone. A database made before this migration has the
 * earlier design (SQLite: an FTS5 table per searchable table with the table as its content, keyed by
 * seq alone; PostgreSQL: a GIN index per column); one made since got the new design from migrations
 * 0001 to 0004. Either way each index is dropped and built again from the rows there are.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  for (const [table, columns] of Object.entries(SEARCHED)) {
    await dialect.dropSearchIndex(db, table, columns);
    await dialect.createSearchIndex(db, table, columns);
  }
}
