import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.ts';
import { sqliteDialect } from '../../src/db/dialect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { freshEnvironment } from '../helpers/process.ts';

describe('migrations', () => {
  it('several nodes migrating one empty database at once apply each migration once', async () => {
    const environment = await freshEnvironment();
    const nodes = [1, 2, 3, 4].map(() =>
      openDatabase({
        databaseUrl: environment.env.DATABASE_URL,
        dataDir: environment.env.TAILOR_DATA_DIR as string,
      }),
    );
    try {
      const results = await Promise.all(nodes.map((node) => migrateToLatest(node)));
      const applied = results.flat().map((result) => result.migrationName);
      expect(applied).toEqual(Object.keys(await migrationsFor(sqliteDialect)));
      expect(await migrateToLatest(nodes[0] as (typeof nodes)[number])).toEqual([]);
    } finally {
      for (const node of nodes) await node.close();
      await environment.drop();
    }
  });
});
