import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('visit_sessions')
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('page_id', 'text', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('page_link_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('last_event_at', 'bigint', (c) => c.notNull())
    .addColumn('interactions', 'integer', (c) => c.notNull())
    .addColumn('cta_clicks', 'integer', (c) => c.notNull())
    .addColumn('form_submits', 'integer', (c) => c.notNull())
    .addColumn('max_scroll_depth', 'integer', (c) => c.notNull())
    .addColumn('time_spent_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_sessions_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('visit_sessions_by_audience')
    .on('visit_sessions')
    .columns(['tenant_id', 'audience_id', 'started_at'])
    .execute();

  await db.schema
    .createTable('audience_hourly_stats')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('audience_id', 'text', (c) => c.notNull().references('audiences.id').onDelete('cascade'))
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('sessions', 'integer', (c) => c.notNull())
    .addColumn('interactions', 'bigint', (c) => c.notNull())
    .addColumn('scroll_depth_sum', 'bigint', (c) => c.notNull())
    .addColumn('time_spent_ms_sum', 'bigint', (c) => c.notNull())
    .addColumn('bounces', 'integer', (c) => c.notNull())
    .addColumn('conversions', 'integer', (c) => c.notNull())
    .addColumn('cta_sessions', 'integer', (c) => c.notNull())
    .addColumn('form_submit_sessions', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('audience_hourly_stats_pk', ['audience_id', 'hour'])
    .execute();

  await db.schema
    .createTable('form_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('page_id', 'text', (c) => c.notNull())
    .addColumn('audience_id', 'text', (c) => c.notNull())
    .addColumn('page_link_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text')
    .addColumn('email', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'bigint', (c) => c.notNull())
    .addColumn('enrichment_state', 'text', (c) => c.notNull())
    .addColumn('enrichment_failure', 'text')
    .addColumn('person_id', 'text')
    .addColumn('account_id', 'text')
    .execute();
  await db.schema
    .createIndex('form_submissions_by_tenant')
    .on('form_submissions')
    .columns(['tenant_id', 'id'])
    .execute();
}
