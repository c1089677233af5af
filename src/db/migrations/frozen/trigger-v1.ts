import { type Kysely, sql } from 'kysely';
import type { Engine } from './engine.ts';
import { identifier } from './identifier.ts';

export interface Trigger {
  name: string;
  table: string;
  /** `INSERT`, `DELETE`, or `UPDATE OF` and the columns whose change fires it. */
  event: 'INSERT' | 'DELETE' | `UPDATE OF ${string}`;
  when?: string;
  statements: string[];
}

/**
 * A row trigger that runs `statements` (SQL that may use NEW and OLD, portable between both
 * databases) after each insert, delete or update of `table` for which `when` holds: the triggers of
 * migrations 0011 and 0016. Frozen: a change here would change what those migrations did.
 */
export async function createTrigger(db: Kysely<unknown>, engine: Engine, trigger: Trigger): Promise<void> {
  const name = identifier(trigger.name);
  const table = identifier(trigger.table);
  const body = trigger.statements.join(';\n');
  if (engine === 'sqlite') {
    const condition = trigger.when ? `WHEN ${trigger.when}` : '';
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${trigger.event} ON ${table} FOR EACH ROW ${condition} BEGIN ${body}; END`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body}; RETURN NULL; END $$`,
    )
    .execute(db);
  const condition = trigger.when ? `WHEN (${trigger.when})` : '';
  await sql
    .raw(
      `CREATE TRIGGER ${name} AFTER ${trigger.event} ON ${table} FOR EACH ROW ${condition} EXECUTE FUNCTION ${name}()`,
    )
    .execute(db);
}
