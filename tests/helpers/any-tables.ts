import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/connection.ts';

/**
 * The database across tenants, on every table untyped. Tests may: they seed and read any table to
 * check what the code under test wrote, while each caller in src/ names the tables it uses.
 */
export function anyTables(database: Database): Kysely<any> {
  return database.acrossTenants();
}
