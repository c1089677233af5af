import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrationsFor } from '../../src/db/migrations/index.ts';
import { ENRICH_ATTEMPTS, ENRICH_JOB } from '../../src/workflows/enrichment/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { databaseBefore, rawPageRow } from '../helpers/migrations.ts';
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
      expect(applied).toEqual(Object.keys(await migrationsFor('sqlite')));
      expect(await migrateToLatest(nodes[0] as (typeof nodes)[number])).toEqual([]);
    } finally {
      for (const node of nodes) await node.close();
      await environment.drop();
    }
  });
});

describe('upgrading a database made before migrations 0011 to 0015', () => {
  it('runs only what is new, keeps a renamed migration from running twice, fills the derived columns, and puts every earlier session in the personalized arm', async () => {
    // The migrations as an older Tailor ran them: up to 0010, with 0009 under its first name.
    const { database, close } = await databaseBefore('0011', { '0009_sessions': '0009_visitors' });
    try {
      const db = anyTables(database);
      const at = 1_700_000_000_000;
      await db.insertInto('tenants').values({ id: 't1', slug: 't1', name: 'T', created_at: at }).execute();
      const account = (id: string, domain: string) => ({
        id,
        tenant_id: 't1',
        domain,
        name: null,
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('accounts')
        .values([account('a1', 'one.example'), account('a2', 'two.example')])
        .execute();
      const person = (id: string, accountId: string, activity: number | null) => ({
        id,
        tenant_id: 't1',
        account_id: accountId,
        name: id,
        email: null,
        email_key: null,
        domain: null,
        domain_given: 0,
        slug: id,
        phone_number: null,
        linkedin_profile_url: null,
        latest_activity_at: activity,
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('persons')
        .values([person('p1', 'a1', at + 1), person('p2', 'a1', at + 5), person('p3', 'a2', null)])
        .execute();
      await db
        .insertInto('pages')
        .values(rawPageRow('pg1', 't1', at))
        .execute();
      const audience = (id: string, number: number, archivedAt: number | null) => ({
        id,
        tenant_id: 't1',
        page_id: 'pg1',
        number,
        is_new_page_agent: 0,
        auto_publish: 0,
        latest_version_id: `${id}_v`,
        published_version_id: `${id}_v`,
        created_at: at,
        updated_at: at,
        archived_at: archivedAt,
      });
      await db
        .insertInto('audiences')
        .values([audience('au1', 1, null), audience('au2', 2, at), audience('au3', 3, null)])
        .execute();
      await db
        .insertInto('visit_sessions' as 'sessions')
        .values({
          id: 's1',
          tenant_id: 't1',
          page_id: 'pg1',
          audience_id: 'au1',
          page_link_id: 'pl1',
          started_at: at,
          last_event_at: at,
          interactions: 1,
          cta_clicks: 1,
          form_submits: 0,
          max_scroll_depth: 50,
          time_spent_ms: 12_000,
        } as never)
        .execute();
      const hourly = {
        tenant_id: 't1',
        audience_id: 'au1',
        hour: at,
        sessions: 1,
        interactions: 1,
        scroll_depth_sum: 50,
        time_spent_ms_sum: 12_000,
        bounces: 0,
        conversions: 1,
        cta_sessions: 1,
        form_submit_sessions: 0,
      };
      await db
        .insertInto('audience_hourly_stats')
        .values(hourly as never)
        .execute();
      await db
        .insertInto('jobs')
        .values({
          id: 'j1',
          tenant_id: 't1',
          kind: 'audience.generate',
          payload: '{}',
          state: 'queued',
          attempts: 0,
          max_attempts: 5,
          run_at: at,
          created_at: at,
          updated_at: at,
        })
        .execute();

      const applied = (await migrateToLatest(database)).map((result) => result.migrationName);
      expect(applied).toEqual(
        Object.keys(await migrationsFor(database.engine)).filter((name) => name >= '0011'),
      );

      const accounts = await db
        .selectFrom('accounts')
        .select(['id', 'linked_persons_count', 'latest_activity_at'])
        .orderBy('id')
        .execute();
      expect(
        accounts.map((row) => [row.id, Number(row.linked_persons_count), row.latest_activity_at]),
      ).toEqual([
        ['a1', 2, at + 5],
        ['a2', 1, null],
      ]);
      const page = await db.selectFrom('pages').select('audiences_count').executeTakeFirstOrThrow();
      expect(Number(page.audiences_count)).toBe(2);
      const job = await db.selectFrom('jobs').select('kind').executeTakeFirstOrThrow();
      expect(job.kind).toBe('versions.generate');
      expect(await db.selectFrom('sessions').select(['id', 'arm']).execute()).toEqual([
        { id: 's1', arm: 'personalized' },
      ]);
      const rollups = await db.selectFrom('audience_hourly_stats').selectAll().execute();
      expect(rollups.map((row) => ({ ...row, hour: Number(row.hour) }))).toEqual([
        expect.objectContaining({ ...hourly, arm: 'personalized' }),
      ]);
      const audiences = await db.selectFrom('audiences').select('holdout_percent').execute();
      expect(audiences.map((row) => row.holdout_percent)).toEqual([0, 0, 0]);
    } finally {
      await close();
    }
  });
});

describe('upgrading a database made before migration 0016', () => {
  it('fills the daily rollups and the running totals from the hourly ones, and keeps them the sums of their hours after', async () => {
    const { database, close } = await databaseBefore('0016');
    try {
      const db = anyTables(database);
      const HOUR = 3_600_000;
      const day = Date.UTC(2026, 0, 31);
      for (const tenant of ['t1', 't2']) {
        await db
          .insertInto('tenants')
          .values({ id: tenant, slug: tenant, name: 'T', created_at: day })
          .execute();
        await db
          .insertInto('pages')
          .values(rawPageRow(`${tenant}_page`, tenant, day))
          .execute();
        await db
          .insertInto('audiences')
          .values({
            id: `${tenant}_audience`,
            tenant_id: tenant,
            page_id: `${tenant}_page`,
            number: 1,
            is_new_page_agent: 0,
            auto_publish: 0,
            latest_version_id: 'v',
            published_version_id: 'v',
            created_at: day,
            updated_at: day,
          })
          .execute();
      }
      /** An hour of sessions: `n` sessions, each with one interaction, 7 s, and every third converted. */
      const hour = (tenant: string, at: number, arm: string, n: number) => ({
        tenant_id: tenant,
        audience_id: `${tenant}_audience`,
        hour: at,
        arm,
        sessions: n,
        interactions: n,
        scroll_depth_sum: 50 * n,
        time_spent_ms_sum: 7_000 * n,
        bounces: 0,
        conversions: Math.floor(n / 3),
        cta_sessions: Math.floor(n / 3),
        form_submit_sessions: 0,
      });
      await db
        .insertInto('audience_hourly_stats')
        .values([
          hour('t1', day, 'personalized', 1),
          hour('t1', day + 5 * HOUR, 'personalized', 2),
          hour('t1', day + 5 * HOUR, 'baseline', 3),
          hour('t1', day + 23 * HOUR, 'personalized', 4),
          hour('t1', day + 24 * HOUR, 'personalized', 5),
          hour('t2', day + 3 * HOUR, 'personalized', 6),
        ] as never)
        .execute();

      const applied = (await migrateToLatest(database)).map((result) => result.migrationName);
      expect(applied).toEqual(
        Object.keys(await migrationsFor(database.engine)).filter((name) => name >= '0016'),
      );

      const daily = async () =>
        (
          await db
            .selectFrom('audience_daily_stats')
            .select(['tenant_id', 'day', 'arm', 'sessions', 'conversions'])
            .orderBy('tenant_id')
            .orderBy('day')
            .orderBy('arm')
            .execute()
        ).map((row) => [
          row.tenant_id,
          Number(row.day) - day,
          row.arm,
          ...[row.sessions, row.conversions].map(Number),
        ]);
      expect(await daily()).toEqual([
        ['t1', 0, 'baseline', 3, 1],
        ['t1', 0, 'personalized', 7, 1],
        ['t1', 24 * HOUR, 'personalized', 5, 1],
        ['t2', 0, 'personalized', 6, 2],
      ]);
      /** Running sessions and conversions per audience, both arms; `null` for the row at hour 0. */
      const running = async () =>
        (
          await db
            .selectFrom('audience_running_stats')
            .select(['tenant_id', 'hour', 'sessions', 'conversions'])
            .orderBy('tenant_id')
            .orderBy('hour')
            .execute()
        ).map((row) => [
          row.tenant_id,
          Number(row.hour) === 0 ? null : Number(row.hour) - day,
          ...[row.sessions, row.conversions].map(Number),
        ]);
      expect(await running()).toEqual([
        ['t1', null, 0, 0],
        ['t1', 0, 1, 0],
        ['t1', 5 * HOUR, 6, 1],
        ['t1', 23 * HOUR, 10, 2],
        ['t1', 24 * HOUR, 15, 3],
        ['t2', null, 0, 0],
        ['t2', 3 * HOUR, 6, 2],
      ]);

      // What ingestion does to an hour: insert it, or add to it.
      const addToHour = (row: ReturnType<typeof hour>) =>
        db
          .insertInto('audience_hourly_stats')
          .values(row as never)
          .onConflict((oc) =>
            oc.columns(['audience_id', 'hour', 'arm']).doUpdateSet((eb) => ({
              sessions: eb('audience_hourly_stats.sessions', '+', row.sessions),
              conversions: eb('audience_hourly_stats.conversions', '+', row.conversions),
            })),
          )
          .execute();
      await addToHour(hour('t1', day + 5 * HOUR, 'personalized', 3));
      await addToHour(hour('t1', day + 30 * HOUR, 'baseline', 9));
      await addToHour(hour('t2', day + 50 * HOUR, 'personalized', 1));
      expect(await daily()).toEqual([
        ['t1', 0, 'baseline', 3, 1],
        ['t1', 0, 'personalized', 10, 2],
        ['t1', 24 * HOUR, 'baseline', 9, 3],
        ['t1', 24 * HOUR, 'personalized', 5, 1],
        ['t2', 0, 'personalized', 6, 2],
        ['t2', 48 * HOUR, 'personalized', 1, 0],
      ]);
      // An hour between two that have sessions starts from the totals before it.
      await addToHour(hour('t1', day + 10 * HOUR, 'personalized', 2));
      expect(await running()).toEqual([
        ['t1', null, 0, 0],
        ['t1', 0, 1, 0],
        ['t1', 5 * HOUR, 9, 2],
        ['t1', 10 * HOUR, 11, 2],
        ['t1', 23 * HOUR, 15, 3],
        ['t1', 24 * HOUR, 20, 4],
        ['t1', 30 * HOUR, 29, 7],
        ['t2', null, 0, 0],
        ['t2', 3 * HOUR, 6, 2],
        ['t2', 50 * HOUR, 7, 2],
      ]);
    } finally {
      await close();
    }
  });
});

describe('upgrading a database made before migration 0020', () => {
  it("marks every earlier activity entry as a visitor's (they were all made from forms) and every note as a user's", async () => {
    const { database, close } = await databaseBefore('0020');
    try {
      const db = anyTables(database);
      const at = 1_700_000_000_000;
      await db.insertInto('tenants').values({ id: 't1', slug: 't1', name: 'T', created_at: at }).execute();
      await db
        .insertInto('persons')
        .values({
          id: 'p1',
          tenant_id: 't1',
          account_id: null,
          name: 'P',
          email: null,
          email_key: null,
          domain: null,
          domain_given: 0,
          slug: 'p',
          phone_number: null,
          linkedin_profile_url: null,
          latest_activity_at: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const entry = (id: string, kind: 'note' | 'activity') => ({
        id,
        tenant_id: 't1',
        person_id: 'p1',
        kind,
        text: id,
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('person_logs')
        .values([entry('l1', 'note'), entry('l2', 'activity')])
        .execute();
      await migrateToLatest(database);
      const rows = await db.selectFrom('person_logs').select(['id', 'source']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'l1', source: 'user' },
        { id: 'l2', source: 'visitor' },
      ]);
    } finally {
      await close();
    }
  });
});

describe('upgrading a database made before migration 0023', () => {
  it('enriches again, each with a job, the submissions that failed as free-mail, and leaves every other as it was', async () => {
    const { database, close } = await databaseBefore('0023');
    try {
      const db = anyTables(database);
      const at = 1_700_000_000_000;
      const submission = (id: string, tenant: string, state: string, failure: string | null) => ({
        id,
        tenant_id: tenant,
        page_id: 'page',
        audience_id: 'audience',
        page_link_id: 'link',
        session_id: null,
        email: `${id}@gmail.com`,
        fields: '{}',
        submitted_at: at,
        enrichment_state: state,
        enrichment_failure: failure,
        person_id: state === 'enriched' ? 'person' : null,
        account_id: null,
      });
      for (const tenant of ['t1', 't2']) {
        await db
          .insertInto('tenants')
          .values({ id: tenant, slug: tenant, name: 'T', created_at: at })
          .execute();
      }
      await db
        .insertInto('form_submissions')
        .values([
          submission('f1', 't1', 'failed', 'free_mail_domain'),
          submission('f2', 't1', 'failed', 'invalid_email'),
          submission('f3', 't1', 'enriched', null),
          submission('f4', 't1', 'pending', null),
          submission('f5', 't2', 'failed', 'free_mail_domain'),
        ] as never)
        .execute();
      const before = Date.now();

      await migrateToLatest(database);

      const rows = await db
        .selectFrom('form_submissions')
        .select(['id', 'enrichment_state', 'enrichment_failure', 'enrichment_finished_at'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'f1', enrichment_state: 'pending', enrichment_failure: null, enrichment_finished_at: null },
        {
          id: 'f2',
          enrichment_state: 'failed',
          enrichment_failure: 'invalid_email',
          enrichment_finished_at: null,
        },
        { id: 'f3', enrichment_state: 'enriched', enrichment_failure: null, enrichment_finished_at: null },
        { id: 'f4', enrichment_state: 'pending', enrichment_failure: null, enrichment_finished_at: null },
        { id: 'f5', enrichment_state: 'pending', enrichment_failure: null, enrichment_finished_at: null },
      ]);
      const jobs = await db
        .selectFrom('jobs')
        .select(['id', 'tenant_id', 'kind', 'payload', 'state', 'attempts', 'max_attempts', 'run_at'])
        .orderBy('tenant_id')
        .execute();
      expect(jobs.map(({ id, run_at, ...job }) => job)).toEqual([
        {
          tenant_id: 't1',
          kind: ENRICH_JOB,
          payload: JSON.stringify({ formSubmissionId: 'f1' }),
          state: 'queued',
          attempts: 0,
          max_attempts: ENRICH_ATTEMPTS,
        },
        {
          tenant_id: 't2',
          kind: ENRICH_JOB,
          payload: JSON.stringify({ formSubmissionId: 'f5' }),
          state: 'queued',
          attempts: 0,
          max_attempts: ENRICH_ATTEMPTS,
        },
      ]);
      for (const job of jobs) {
        expect(job.id).toMatch(/^job_[0-9a-z]{26}$/);
        expect(Number(job.run_at)).toBeGreaterThanOrEqual(before);
      }
    } finally {
      await close();
    }
  });
});

describe('upgrading a database made before migration 0033', () => {
  it('gives each earlier submission the arm of the session it names, on its page and audience, and no version', async () => {
    const { database, close } = await databaseBefore('0033');
    try {
      const db = anyTables(database);
      const at = 1_700_000_000_000;
      for (const tenant of ['t1', 't2']) {
        await db
          .insertInto('tenants')
          .values({ id: tenant, slug: tenant, name: 'T', created_at: at })
          .execute();
        for (const page of ['p1', 'p2']) {
          const pageId = `${tenant}_${page}`;
          await db
            .insertInto('pages')
            .values(rawPageRow(pageId, tenant, at))
            .execute();
          await db
            .insertInto('audiences')
            .values({
              id: `${pageId}_audience`,
              tenant_id: tenant,
              page_id: pageId,
              number: 1,
              is_new_page_agent: 0,
              auto_publish: 0,
              latest_version_id: 'v',
              published_version_id: 'v',
              created_at: at,
              updated_at: at,
            } as never)
            .execute();
        }
      }
      const session = (id: string, page: string, arm: string) => ({
        id,
        tenant_id: 't1',
        page_id: page,
        audience_id: `${page}_audience`,
        page_link_id: 'link',
        started_at: at,
        last_event_at: at,
        interactions: 0,
        cta_clicks: 0,
        form_submits: 1,
        max_scroll_depth: 0,
        time_spent_ms: 0,
        arm,
      });
      await db
        .insertInto('sessions')
        .values([
          session('s-held', 't1_p1', 'baseline'),
          session('s-shown', 't1_p1', 'personalized'),
          session('s-other-page', 't1_p2', 'baseline'),
        ] as never)
        .execute();
      const submission = (id: string, tenant: string, sessionId: string | null) => ({
        id,
        tenant_id: tenant,
        page_id: `${tenant}_p1`,
        audience_id: `${tenant}_p1_audience`,
        page_link_id: 'link',
        session_id: sessionId,
        email: null,
        fields: '{}',
        submitted_at: at,
        enrichment_state: 'pending',
        enrichment_failure: null,
        person_id: null,
        account_id: null,
        enrichment_finished_at: null,
      });
      await db
        .insertInto('form_submissions')
        .values([
          submission('f1', 't1', 's-held'),
          submission('f2', 't1', 's-shown'),
          submission('f3', 't1', 's-other-page'),
          submission('f4', 't1', 'gone'),
          submission('f5', 't1', null),
          submission('f6', 't2', 's-held'),
        ] as never)
        .execute();

      await migrateToLatest(database);

      const rows = await db
        .selectFrom('form_submissions')
        .select(['id', 'arm', 'version_id'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'f1', arm: 'baseline', version_id: null },
        { id: 'f2', arm: 'personalized', version_id: null },
        { id: 'f3', arm: null, version_id: null },
        { id: 'f4', arm: null, version_id: null },
        { id: 'f5', arm: null, version_id: null },
        { id: 'f6', arm: null, version_id: null },
      ]);
    } finally {
      await close();
    }
  });
});
