import type { Kysely } from 'kysely';
import type { Engine } from './frozen/engine.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  // Workers look for due queued jobs and for running jobs whose lease ran out.
  await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'run_at']).execute();
  await db.schema.createIndex('jobs_leases').on('jobs').columns(['state', 'locked_until']).execute();
  await db.schema.createIndex('jobs_by_tenant').on('jobs').columns(['tenant_id', 'kind', 'id']).execute();

  await db.schema
    .createTable('schedules')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('next_run_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'bigint')
    .addColumn('last_run_at', 'bigint')
    .execute();
}
