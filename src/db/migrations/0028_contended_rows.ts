import { type Kysely, sql } from 'kysely';
import type { Engine } from './frozen/engine.ts';

/** The tables whose rows 0010 counts per tenant. */
const COUNTED_TABLES = ['accounts', 'persons'];

const TOTALS = [
  'sessions',
  'interactions',
  'scroll_depth_sum',
  'time_spent_ms_sum',
  'bounces',
  'conversions',
  'cta_sessions',
  'form_submit_sessions',
];

/** Adds a staged change (NEW) to its hourly row, starting the hour when it has none. */
const ADD_TO_HOUR = `INSERT INTO audience_hourly_stats (tenant_id, audience_id, hour, arm, ${TOTALS.join(', ')})
   VALUES (NEW.tenant_id, NEW.audience_id, NEW.hour, NEW.arm, ${TOTALS.map((column) => `NEW.${column}`).join(', ')})
   ON CONFLICT (audience_id, hour, arm) DO UPDATE SET
   ${TOTALS.map((column) => `${column} = audience_hourly_stats.${column} + excluded.${column}`).join(', ')}`;

/** Moves a person's latest activity forward to a staged instant (NEW), never back. */
const MOVE_ACTIVITY = `UPDATE persons SET latest_activity_at = NEW.at
   WHERE tenant_id = NEW.tenant_id AND id = NEW.person_id
   AND (latest_activity_at IS NULL OR latest_activity_at < NEW.at)`;

/**
 * A table of staged changes whose row trigger applies each at the commit (PostgreSQL) or at once
 * (SQLite): see up().
 */
async function createStaged(
  db: Kysely<unknown>,
  engine: Engine,
  table: string,
  columns: Record<string, 'text' | 'bigint'>,
  apply: string,
): Promise<void> {
  let staged = db.schema
    .createTable(table)
    .addColumn('id', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
      engine === 'sqlite' ? c.primaryKey() : c.primaryKey().generatedAlwaysAsIdentity(),
    );
  for (const [column, type] of Object.entries(columns)) {
    staged = staged.addColumn(column, type, (c) => c.notNull());
  }
  await staged.execute();
  const trigger = `${table}_applied`;
  if (engine === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER ${trigger} BEFORE INSERT ON ${table} FOR EACH ROW
         BEGIN ${apply}; SELECT RAISE(IGNORE); END`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${apply};
        DELETE FROM ${table} WHERE id = NEW.id;
        RETURN NULL;
      END $$`)
    .execute(db);
  await sql
    .raw(
      `CREATE CONSTRAINT TRIGGER ${trigger} AFTER INSERT ON ${table}
       DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${trigger}()`,
    )
    .execute(db);
}

/**
 * On PostgreSQL a row lock is held until the commit's WAL flush is done, so transactions writing
 * the same row commit one flush after another, whatever the pool. Three kinds of rows that every
 * write of a tenant or of an audience wrote before the rest of its transaction are taken off that
 * path here:
 *
 * - **Row counts** (0010): on PostgreSQL the counters' triggers no longer add to the tenant's row of
 *   `tenant_row_counts` but append a change (+1, -1) to `tenant_row_count_changes`, which takes no
 *   lock any other writer waits for. A count is the row plus the changes not yet folded into it
 *   (TenantDb.rowCount, in one statement, so one snapshot); a scheduled task folds the changes into
 *   the row (db/postgres/row-counts.ts), in one statement that deletes them and adds their sum, so
 *   that no reader sees a change twice or never. SQLite, one writer at a time, keeps 0010's
 *   triggers: its table of changes stays empty.
 * - **Audience rollups** (0009, 0016, 0027): a batch of events stages its change of an hour in
 *   `audience_stat_changes` instead of adding it to the hourly row itself. On PostgreSQL a deferred
 *   constraint trigger adds the staged row to its hour at the commit (the hourly row, and by 0016's
 *   and 0027's triggers the daily row and the running totals with their lock on the audience's row
 *   at hour 0) and deletes it: the audience's rows are locked from the commit to its flush only,
 *   no longer across the statements and round trips of the rest of the transaction. On SQLite a
 *   trigger adds it at once and drops the row (RAISE(IGNORE)): nothing is stored there. Either way
 *   the rollups hold every committed change, as before; a transaction reading its own rollups
 *   before its commit would not see its change on PostgreSQL (none does).
 * - **A person's latest activity**, which every batch of events of the person's audience moves
 *   forward: staged in `person_activity_changes` and applied the same way.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('tenant_row_count_changes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tenant_row_count_changes_by_name')
    .on('tenant_row_count_changes')
    .columns(['tenant_id', 'name'])
    .execute();

  await createStaged(
    db,
    engine,
    'audience_stat_changes',
    {
      tenant_id: 'text',
      audience_id: 'text',
      hour: 'bigint',
      arm: 'text',
      ...Object.fromEntries(TOTALS.map((column) => [column, 'bigint' as const])),
    },
    ADD_TO_HOUR,
  );
  await createStaged(
    db,
    engine,
    'person_activity_changes',
    { tenant_id: 'text', person_id: 'text', at: 'bigint' },
    MOVE_ACTIVITY,
  );
  if (engine === 'sqlite') return;

  for (const table of COUNTED_TABLES) {
    await sql
      .raw(`CREATE OR REPLACE FUNCTION ${table}_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN
            INSERT INTO tenant_row_count_changes (tenant_id, name, n) VALUES (NEW.tenant_id, '${table}', 1);
          ELSE
            INSERT INTO tenant_row_count_changes (tenant_id, name, n) VALUES (OLD.tenant_id, '${table}', -1);
          END IF;
          RETURN NULL;
        END $$`)
      .execute(db);
  }
}
