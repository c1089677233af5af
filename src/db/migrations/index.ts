import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Kysely, Migration } from 'kysely';
import type { Engine } from './frozen/engine.ts';

export type { Engine } from './frozen/engine.ts';

type Step = { up(db: Kysely<unknown>, engine: Engine): Promise<void> };

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** `NNNN_name.ts`: the number orders the steps; the name without extension is the migration's name. */
const STEP_FILE = /^(\d{4}_[a-z0-9_]+)\.[cm]?[jt]s$/;

/**
 * Every file of this folder named like a step, in order. Append only: a migration that has run
 * somewhere is never edited, only followed by another (src/db/migrate.ts follows renames). Nor does
 * a step call code that may change: it writes its DDL out or calls the frozen helpers in frozen/,
 * which are never edited either, and it imports nothing outside this folder but kysely (a
 * dependency-cruiser rule, migrations-are-frozen, keeps it so; docs/architecture.md says why).
 */
export async function migrationsFor(engine: Engine): Promise<Record<string, Migration>> {
  const files = fs
    .readdirSync(HERE)
    .filter((file) => STEP_FILE.test(file))
    .sort();
  const migrations: Record<string, Migration> = {};
  for (const file of files) {
    const step = (await import(pathToFileURL(path.join(HERE, file)).href)) as Step;
    const name = file.replace(/\.[cm]?[jt]s$/, '');
    migrations[name] = { up: (db: Kysely<unknown>) => step.up(db, engine) };
  }
  return migrations;
}
