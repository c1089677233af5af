import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';
import * as earlier from './frozen/search-index-v1.ts';
import * as byTenant from './frozen/search-index-v2.ts';

/** Every searchable table and the columns its search matches, as migrations 0001 to 0004 made them. */
const SEARCHED: Record<string, string[]> = {
  accounts: ['name', 'domain'],
  pages: ['name', 'title'],
  topics: ['title', 'purpose'],
  topic_entries: ['content_text'],
  assets: ['name', 'purpose', 'tags_text'],
};

/**
 * Search indexes whose entries lead with the tenant (frozen/search-index-v2.ts), so that a tenant's
 * matches are counted in the index alone, in place of the first design that migrations 0001 to
 * 0004 built (frozen/search-index-v1.ts). For a while 0001 to 0004 built this design themselves,
 * so an index of either design is dropped; each is then built again from the rows there are.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  for (const [table, columns] of Object.entries(SEARCHED)) {
    await earlier.dropSearchIndex(db, engine, table, columns);
    await byTenant.dropSearchIndex(db, engine, table);
    await byTenant.createSearchIndex(db, engine, table, columns);
  }
}
