import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import type { AccountsTables } from '../../src/resources/accounts/tables.ts';
import type { PersonsTables } from '../../src/resources/persons/tables.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { databaseBefore, rawPageRow } from '../helpers/migrations.ts';
import { onPostgres, testDatabase } from '../helpers/server.ts';

const ACCOUNT_COLUMNS = ['name', 'domain'];
const PERSON_COLUMNS = ['name', 'email'];

describe('substring search index', () => {
  let database: Database;

  beforeAll(async () => {
    database = await testDatabase();
    await migrateToLatest(database);
  });
  afterAll(() => database.close());

  /** The database's plan for `statement`, with sequential scans discouraged on PostgreSQL. */
  async function planOf(statement: CompiledQuery): Promise<string> {
    return anyTables(database)
      .transaction()
      .execute(async (trx) => {
        // A small test table is cheaper to scan; the question here is whether the index can serve.
        if (onPostgres) await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const explain = onPostgres ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
        const result = await trx.executeQuery({ ...statement, sql: explain + statement.sql });
        return JSON.stringify(result.rows);
      });
  }

  function accountSearch(tenantId?: string) {
    const where = database.search.substringMatch('accounts', ACCOUNT_COLUMNS, 'widget', tenantId);
    return anyTables(database).selectFrom('accounts').select('id').where(where).compile();
  }

  it.each([
    ['of every tenant', undefined],
    ['of one tenant', 'tenant_1'],
  ])('serves account search %s from the trigram index, not a scan', async (_label, tenantId) => {
    const plan = await planOf(accountSearch(tenantId));
    if (onPostgres) {
      expect(plan).toContain('accounts_search_content');
      expect(plan).not.toContain('Seq Scan');
    } else {
      expect(plan).toContain('VIRTUAL TABLE INDEX');
      expect(plan).not.toMatch(/SCAN accounts\b(?!_search)/);
    }
  });

  it('serves person search of three characters or more from the trigram index, not a scan', async () => {
    const where = database.search.substringMatch('persons', PERSON_COLUMNS, 'hopper', 'tenant_1');
    const plan = await planOf(anyTables(database).selectFrom('persons').select('id').where(where).compile());
    if (onPostgres) {
      expect(plan).toContain('persons_search_content');
      expect(plan).not.toContain('Seq Scan');
    } else {
      expect(plan).toContain('SCAN persons_search VIRTUAL TABLE INDEX');
      expect(plan).not.toMatch(/SCAN persons\b(?!_search)/);
    }
  });

  it.each([
    ['of one character', 'g'],
    ['of two characters', 'gr'],
    ['of three characters', 'gra'],
    ['holding a newline, which PostgreSQL checks on the columns', 'grace\nhopper'],
  ])(
    'looks for a person search %s near the cursor in a stretch of ids, through an index',
    async (_label, query) => {
      const where = database.search.substringMatchBetween('persons', PERSON_COLUMNS, query, 'tenant_1', {
        from: 'person_0',
        below: 'person_1',
      });
      const plan = await planOf(
        anyTables(database)
          .selectFrom('persons')
          .select('id')
          .where('tenant_id', '=', 'tenant_1')
          .where('id', '>=', 'person_0')
          .where('id', '<', 'person_1')
          .where(where)
          .compile(),
      );
      if (onPostgres) {
        expect(plan).not.toContain('Seq Scan');
      } else {
        expect(plan).toContain(
          'SEARCH persons USING INDEX persons_by_tenant (tenant_id=? AND id>? AND id<?)',
        );
        expect(plan).not.toMatch(/SCAN persons\b(?!_search)/);
      }
    },
  );

  it.skipIf(onPostgres)(
    "bounds a small tenant's search by its own rows beside a large tenant: one seek for each bound (issue 37)",
    async () => {
      const db = anyTables(database);
      await db
        .insertInto('tenants')
        .values(['large', 'small'].map((name) => ({ id: name, slug: name, name, created_at: 0 })))
        .execute();
      // The large tenant's rows come after the small tenant's, as when a tenant grows after another.
      await sql`INSERT INTO persons (id, tenant_id, name, domain_given, slug, created_at, updated_at)
        VALUES ('small_1', 'small', 'Grace Hopper', 0, 'grace-hopper', 0, 0)`.execute(db);
      await sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
        INSERT INTO persons (id, tenant_id, name, domain_given, slug, created_at, updated_at)
        SELECT 'large_' || i, 'large', 'Person ' || i, 0, 'person-' || i, 0, 0 FROM n`.execute(db);
      // The statistics the server keeps (PRAGMA optimize), from which the planner chose to walk
      // every seq down from the greatest, through the large tenant's rows.
      await sql`ANALYZE`.execute(db);
      for (const tenant of ['small', 'large']) {
        const where = database.search.substringMatchBetween('persons', PERSON_COLUMNS, 'hopper', tenant, {});
        const plan = await planOf(
          db.selectFrom('persons').select('id').where('tenant_id', '=', tenant).where(where).compile(),
        );
        // Each bound is SQLite's min/max optimisation on the index: one seek, whatever the tenants hold.
        expect(plan, tenant).toContain('persons_by_tenant_seq (tenant_id=?)');
        expect(plan, tenant).not.toContain('persons_by_seq');
        expect(plan, tenant).not.toMatch(/SCAN persons\b(?!_search)/);
      }
      // Near the cursor the bounds lie in a stretch of ids: read there, not by walking every seq
      // above the stretch through the (tenant_id, seq) index (the large tenant's newest rows).
      const near = database.search.substringMatchBetween('persons', PERSON_COLUMNS, 'hopper', 'large', {
        from: 'large_4000',
        below: 'large_4999',
      });
      const plan = await planOf(
        db.selectFrom('persons').select('id').where('tenant_id', '=', 'large').where(near).compile(),
      );
      expect(plan).toContain('persons_by_tenant (tenant_id=? AND id>? AND id<?)');
      // The index still finds the matching rows by seq; it is not walked for a bound.
      expect(plan).not.toMatch(/persons_by_tenant_seq \(tenant_id=\?\)/);
    },
  );

  it('reads only the stretch of the index that a range of ids covers (SQLite), or those rows (PostgreSQL)', async () => {
    const where = database.search.substringMatchBetween('accounts', ACCOUNT_COLUMNS, 'widget', 'tenant_1', {
      from: 'account_0',
      below: 'account_1',
    });
    const plan = await planOf(
      anyTables(database)
        .selectFrom('accounts')
        .select('id')
        .where('tenant_id', '=', 'tenant_1')
        .where('id', '>=', 'account_0')
        .where('id', '<', 'account_1')
        .where(where)
        .compile(),
    );
    if (onPostgres) {
      expect(plan).not.toContain('Seq Scan');
    } else {
      // The index is read between two rowids, which the planner shows as `><`.
      expect(plan).toMatch(/SCAN accounts_search VIRTUAL TABLE INDEX \d+:M\d+></);
      expect(plan).not.toMatch(/SCAN accounts\b(?!_search)/);
    }
  });
});

/** Every searchable table and its searched columns. */
const SEARCHED: Record<string, string[]> = {
  accounts: ACCOUNT_COLUMNS,
  pages: ['name', 'title'],
  topics: ['title', 'purpose'],
  topic_entries: ['content_text'],
  assets: ['name', 'purpose', 'tags_text'],
};

/** The search indexes of the first design, which migrations 0001 to 0004 built and 0017 replaced. */
async function earlierSearchIndexes(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = onPostgres
    ? await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
        WHERE schemaname = current_schema() AND indexname LIKE '%_trgm' ORDER BY indexname`.execute(db)
    : await sql<{ name: string }>`SELECT name FROM sqlite_master
        WHERE type = 'table' AND name LIKE '%_fts' ORDER BY name`.execute(db);
  return rows.map((row) => row.name);
}

describe('upgrading a database whose search indexes are of the earlier design (before migration 0017)', () => {
  it('builds each index from the rows there are, counts each tenant apart, and follows every write after', async () => {
    const { database, close } = await databaseBefore('0017');
    try {
      const db = anyTables(database);
      expect(await earlierSearchIndexes(db)).toEqual(
        onPostgres
          ? [
              'accounts_domain_trgm',
              'accounts_name_trgm',
              'assets_name_trgm',
              'assets_purpose_trgm',
              'assets_tags_text_trgm',
              'pages_name_trgm',
              'pages_title_trgm',
              'topic_entries_content_text_trgm',
              'topics_purpose_trgm',
              'topics_title_trgm',
            ]
          : ['accounts_fts', 'assets_fts', 'pages_fts', 'topic_entries_fts', 'topics_fts'],
      );

      const at = 1_700_000_000_000;
      const times = { created_at: at, updated_at: at };
      for (const tenant of ['t1', 't2']) {
        await db
          .insertInto('tenants')
          .values({ id: tenant, slug: tenant, name: 'T', created_at: at })
          .execute();
        await db
          .insertInto('accounts')
          .values([
            {
              id: `${tenant}_a1`,
              tenant_id: tenant,
              domain: `rocket-${tenant}.example`,
              name: 'Acme Rockets',
              ...times,
            },
            {
              id: `${tenant}_a2`,
              tenant_id: tenant,
              domain: `globex-${tenant}.example`,
              name: null,
              ...times,
            },
          ])
          .execute();
        await db
          .insertInto('pages')
          .values(rawPageRow(`${tenant}_p1`, tenant, at, { name: 'Rocket launch', title: 'Launch day' }))
          .execute();
        await db
          .insertInto('topics')
          .values({
            id: `${tenant}_t1`,
            tenant_id: tenant,
            title: 'Pricing',
            purpose: 'Rocket prices',
            sort_order: 0,
            is_default: 0,
            ...times,
          })
          .execute();
        await db
          .insertInto('topic_entries')
          .values({
            id: `${tenant}_e1`,
            tenant_id: tenant,
            topic_id: `${tenant}_t1`,
            sort_order: 0,
            content_type: 'text',
            content_text: 'Rockets from 10k',
            ...times,
          })
          .execute();
        await db
          .insertInto('files')
          .values({
            id: `${tenant}_f1`,
            tenant_id: tenant,
            content_type: 'image/png',
            size: 1,
            sha256: 'x',
            has_preview: 0,
            created_at: at,
          })
          .execute();
        await db
          .insertInto('assets')
          .values({
            id: `${tenant}_s1`,
            tenant_id: tenant,
            name: 'Hero',
            purpose: 'Rocket picture',
            tags: '["space"]',
            tags_text: 'space',
            hidden: 0,
            data_type: 'image',
            file_id: `${tenant}_f1`,
            lifecycle_state: 'active',
            ...times,
          })
          .execute();
      }
      // Only the first tenant has rows written before the upgrade; the second's come after.
      await db.deleteFrom('accounts').where('tenant_id', '=', 't2').execute();

      const applied = (await migrateToLatest(database)).map((result) => result.migrationName);
      expect(applied).toEqual(
        Object.keys(await migrationsFor(database.engine)).filter((name) => name >= '0017'),
      );
      expect(await earlierSearchIndexes(db)).toEqual([]);

      const counts = (tenant: string, query: string) =>
        Promise.all(
          Object.entries(SEARCHED).map(([table, columns]) =>
            database.forTenant(tenant).countSubstringMatches(table as never, columns, query),
          ),
        );
      // accounts, pages, topics, topic entries, assets
      expect(await counts('t1', 'ROCKET')).toEqual([1, 1, 1, 1, 1]);
      expect(await counts('t2', 'rocket')).toEqual([0, 1, 1, 1, 1]);
      expect(await counts('t1', 'globex')).toEqual([1, 0, 0, 0, 0]);
      expect(await counts('t3', 'rocket')).toEqual([0, 0, 0, 0, 0]);

      const matching = (tenant: string, query: string) =>
        database
          .forTenant<AccountsTables>(tenant)
          .selectFrom('accounts')
          .select('id')
          .where(database.search.substringMatch('accounts', ACCOUNT_COLUMNS, query, tenant))
          .orderBy('id')
          .execute();
      expect(await matching('t1', 'rocket')).toEqual([{ id: 't1_a1' }]);

      await db
        .insertInto('accounts')
        .values({ id: 't2_a3', tenant_id: 't2', domain: 'rockets-again.example', name: 'Again', ...times })
        .execute();
      await db.updateTable('accounts').set({ name: 'Globex Rockets' }).where('id', '=', 't1_a2').execute();
      await db.deleteFrom('accounts').where('id', '=', 't1_a1').execute();
      await db.updateTable('pages').set({ title: 'Orbit' }).where('id', '=', 't1_p1').execute();
      expect(await counts('t1', 'rocket')).toEqual([1, 1, 1, 1, 1]);
      expect(await counts('t1', 'acme')).toEqual([0, 0, 0, 0, 0]);
      expect(await counts('t1', 'launch day')).toEqual([0, 0, 0, 0, 0]);
      expect(await counts('t1', 'orbit')).toEqual([0, 1, 0, 0, 0]);
      expect(await counts('t2', 'rocket')).toEqual([1, 1, 1, 1, 1]);
      expect(await matching('t1', 'rocket')).toEqual([{ id: 't1_a2' }]);
      expect(await matching('t2', 'rocket')).toEqual([{ id: 't2_a3' }]);
    } finally {
      await close();
    }
  });
});

describe('upgrading a database made before persons had a search index (migration 0019)', () => {
  it('indexes the persons there are, each tenant apart, and follows every write after', async () => {
    const { database, close } = await databaseBefore('0019');
    try {
      const db = anyTables(database);
      const at = 1_700_000_000_000;
      const person = (id: string, tenant: string, name: string, email: string | null) => ({
        id,
        tenant_id: tenant,
        account_id: null,
        name,
        email,
        email_key: email?.toLowerCase() ?? null,
        domain: null,
        domain_given: 0,
        slug: id,
        phone_number: null,
        linkedin_profile_url: null,
        latest_activity_at: null,
        created_at: at,
        updated_at: at,
      });
      for (const tenant of ['t1', 't2']) {
        await db
          .insertInto('tenants')
          .values({ id: tenant, slug: tenant, name: 'T', created_at: at })
          .execute();
      }
      await db
        .insertInto('persons')
        .values([
          person('p1', 't1', 'Grace Hopper', 'grace@navy.example'),
          person('p2', 't1', 'Ada Lovelace', null),
          person('p3', 't2', 'Grace Other', 'GRACE@other.example'),
        ])
        .execute();

      await migrateToLatest(database);

      const matching = (tenant: string, query: string) =>
        database
          .forTenant<PersonsTables>(tenant)
          .selectFrom('persons')
          .select('id')
          .where(database.search.substringMatch('persons', PERSON_COLUMNS, query, tenant))
          .orderBy('id')
          .execute()
          .then((rows) => rows.map((row) => row.id));
      const count = (tenant: string, query: string) =>
        database.forTenant(tenant).countSubstringMatches('persons' as never, PERSON_COLUMNS, query);
      expect(await matching('t1', 'GRACE')).toEqual(['p1']);
      expect(await matching('t1', 'lovelace')).toEqual(['p2']);
      expect(await matching('t2', 'grace@')).toEqual(['p3']);
      expect([await count('t1', 'grace'), await count('t2', 'grace'), await count('t3', 'grace')]).toEqual([
        1, 1, 0,
      ]);

      await db
        .insertInto('persons')
        .values(person('p4', 't1', 'Grace Kelly', 'kelly@film.example'))
        .execute();
      await db.updateTable('persons').set({ name: 'Rear Admiral Hopper' }).where('id', '=', 'p1').execute();
      await db
        .updateTable('persons')
        .set({ email: 'ada@analytical.example' })
        .where('id', '=', 'p2')
        .execute();
      await db.deleteFrom('persons').where('id', '=', 'p3').execute();
      // The first person still has the word in their email; the new one has it in their name.
      expect(await matching('t1', 'grace')).toEqual(['p1', 'p4']);
      expect(await matching('t1', 'admiral')).toEqual(['p1']);
      expect(await matching('t1', 'analytical')).toEqual(['p2']);
      expect(await count('t2', 'grace')).toBe(0);
      expect(await count('t1', 'film.example')).toBe(1);
    } finally {
      await close();
    }
  });
});
