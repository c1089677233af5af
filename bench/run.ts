/**
 * `npm run bench` runs every scenario, each in a process of its own (so each reports its own memory);
 * `npm run bench -- <scenario> [--option value …]` runs one; `npm run bench -- --list` lists them.
 * SQLite in a temporary directory by default, PostgreSQL with DATABASE_URL. `npm run bench -- table`
 * runs the goals' rows on both databases and prints their table (bench/table.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario } from './scenario.ts';
import { runTable } from './table.ts';

const SCENARIOS = path.join(import.meta.dirname, 'scenarios');

async function scenarios(): Promise<Scenario[]> {
  const files = fs
    .readdirSync(SCENARIOS)
    .filter((file) => file.endsWith('.ts'))
    .sort();
  const modules = await Promise.all(
    files.map(
      (file) => import(pathToFileURL(path.join(SCENARIOS, file)).href) as Promise<{ default: Scenario }>,
    ),
  );
  return modules.map((module) => module.default);
}

function usage(all: Scenario[]): string {
  return [
    'npm run bench                              every scenario, with its defaults',
    'npm run bench -- <scenario> [options]      one scenario',
    'npm run bench -- table [--postgres-url postgres://…] [--audiences 1000] [--sessions 1000000]',
    '                                           the goals of issue 24 on SQLite (and PostgreSQL), as a table',
    '',
    ...all.map(
      (scenario) =>
        `  ${scenario.name.padEnd(18)} ${scenario.summary}${scenario.usage ? `\n  ${''.padEnd(18)} ${scenario.usage}` : ''}`,
    ),
  ].join('\n');
}

const all = await scenarios();
const [name, ...args] = process.argv.slice(2);
if (name === undefined) {
  let failed = 0;
  for (const scenario of all) {
    console.log(`\n## ${scenario.name}: ${scenario.summary}`);
    const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, scenario.name], {
      stdio: 'inherit',
    });
    if (child.status !== 0) failed++;
  }
  process.exitCode = failed ? 1 : 0;
} else if (name === 'table') {
  await runTable(args);
} else {
  const scenario = all.find((candidate) => candidate.name === name);
  if (!scenario) {
    console.log(usage(all));
    process.exitCode = name === '--list' || name === '--help' ? 0 : 2;
  } else {
    await scenario.run(args);
  }
}
