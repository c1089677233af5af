import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.ts';
import * as foundation from './0001_foundation.ts';

type Step = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> };

// Append only: a migration that has run somewhere is never edited, only followed by another.
const steps: Record<string, Step> = {
  '0001_foundation': foundation,
};

export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(steps).map(([name, step]) => [
      name,
      { up: (db: Kysely<unknown>) => step.up(db, dialect) },
    ]),
  );
}
