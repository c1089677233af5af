/**
 * `npm run bench -- table [--postgres-url postgres://…] [--audiences 1000] [--sessions 1000000]`:
 * every row of the request-rate and analytics goals (issue 24), on SQLite and, with a PostgreSQL
 * URL, on PostgreSQL, each scenario in a process of its own with the harness's one method (pinned,
 * rounds alternating with the bare server, medians, the CPU other processes took), then the table
 * in markdown. On PostgreSQL each scenario gets a database of its own, made and dropped here
 * (`tailor_bench_table`, on the server the URL names), and PostgreSQL's own `pgbench` runs on a
 * scratch database beside them: the database's ceiling on this machine.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  describeNoise,
  fmt,
  LOAD_CORE,
  type Measurement,
  type Noise,
  onCore,
  parseOptions,
  withNoise,
} from './harness.ts';

type Engine = 'sqlite' | 'postgres';

/** A goal on the ratio to bare node:http, or on p99 in milliseconds. */
type Goal = { ratio: number } | { p99: number };

interface Row {
  path: string;
  /** The scenario that measures it and the label of its measurement there. */
  scenario: string;
  label: string;
  kind: Measurement['kind'];
  goals: Record<Engine, Goal>;
}

/** The rows, the analytics ones named with the seed they run on. */
const rows = (analytics: string): Row[] => [
  {
    path: '`GET /v0/accounts/{id}`',
    scenario: 'account-get',
    label: 'account get',
    kind: 'load',
    goals: { sqlite: { ratio: 0.6 }, postgres: { ratio: 0.4 } },
  },
  {
    path: '`POST /v0/persons`',
    scenario: 'person-create',
    label: 'person create',
    kind: 'load',
    goals: { sqlite: { ratio: 0.25 }, postgres: { ratio: 0.15 } },
  },
  {
    path: 'public page',
    scenario: 'public-page',
    label: 'public page',
    kind: 'load',
    goals: { sqlite: { ratio: 0.5 }, postgres: { ratio: 0.4 } },
  },
  {
    path: '`POST /v0/public/events`',
    scenario: 'events',
    label: 'events',
    kind: 'load',
    goals: { sqlite: { ratio: 0.3 }, postgres: { ratio: 0.2 } },
  },
  {
    path: `${analytics}, 10 concurrent clients`,
    scenario: 'analytics',
    label: 'analytics 30 days',
    kind: 'load',
    goals: { sqlite: { p99: 100 }, postgres: { p99: 150 } },
  },
  {
    path: `${analytics}, one request at a time`,
    scenario: 'analytics',
    label: 'analytics 30 days',
    kind: 'sequential',
    goals: { sqlite: { p99: 30 }, postgres: { p99: 50 } },
  },
];

const RUN = path.join(import.meta.dirname, 'run.ts');
const BENCH_DATABASE = 'tailor_bench_table';
const PGBENCH_DATABASE = 'tailor_bench_pgbench';

/** The URL of database `name` on the server `url` names. */
function databaseUrl(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Drops database `name` on the server of `url` if it is there, and makes it again unless `drop`. */
async function freshDatabase(url: string, name: string, drop = false): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    if (!drop) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/** Runs one scenario in a process of its own; answers the measurements it recorded. */
function runScenario(scenario: string, args: string[], databaseUrl: string | undefined): Measurement[] {
  const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-bench-table-')), 'results.jsonl');
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_RESULTS: results };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  console.log(`\n## ${scenario} on ${databaseUrl ? 'PostgreSQL' : 'SQLite'}`);
  const child = spawnSync(process.execPath, [...process.execArgv, RUN, scenario, ...args], {
    stdio: 'inherit',
    env,
  });
  const lines = fs.existsSync(results) ? fs.readFileSync(results, 'utf8').trim().split('\n') : [];
  fs.rmSync(path.dirname(results), { recursive: true, force: true });
  if (child.status !== 0) console.log(`${scenario} failed (exit ${child.status})`);
  return lines.filter(Boolean).map((line) => JSON.parse(line) as Measurement);
}

/** pgbench from PATH or from Debian's PostgreSQL packages; undefined when neither has it. */
function findPgbench(): string | undefined {
  if (spawnSync('pgbench', ['--version']).status === 0) return 'pgbench';
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort().reverse() : [];
  return versions
    .map((version) => path.join(root, version, 'bin', 'pgbench'))
    .find((file) => fs.existsSync(file));
}

interface PgbenchResult {
  mode: string;
  tps: number;
  noise: Noise;
}

/**
 * PostgreSQL's own ceiling: pgbench's TPC-B-like transactions (5 statements, one commit) and its
 * select-only run (`-S`, one primary-key read), 10 clients on 2 threads for 10 s each, the client
 * pinned to the load generator's core, on a scratch database initialized at scale 1.
 */
async function pgbenchRows(url: string): Promise<PgbenchResult[]> {
  const pgbench = findPgbench();
  if (!pgbench) {
    console.log('\npgbench is not installed (Debian: postgresql-client): no ceiling row for PostgreSQL');
    return [];
  }
  const scratch = databaseUrl(url, PGBENCH_DATABASE);
  await freshDatabase(url, PGBENCH_DATABASE);
  try {
    await promisify(execFile)(pgbench, ['-i', '-q', scratch]);
    const results: PgbenchResult[] = [];
    for (const [mode, extra] of [
      ['TPC-B-like (5 statements, one commit)', []],
      ['select-only (-S, one primary-key read)', ['-S']],
    ] as const) {
      const [command, ...args] = onCore(LOAD_CORE, [
        pgbench,
        '-c',
        '10',
        '-j',
        '2',
        '-T',
        '10',
        ...extra,
        scratch,
      ]);
      const { result, noise } = await withNoise(() => promisify(execFile)(command as string, args));
      const tps = Number(result.stdout.match(/tps = ([\d.]+)/)?.[1] ?? Number.NaN);
      console.log(`pgbench ${mode}, 10 clients: ${fmt(tps)} transactions/s | ${describeNoise(noise)}`);
      results.push({ mode, tps, noise });
    }
    return results;
  } finally {
    await freshDatabase(url, PGBENCH_DATABASE, true);
  }
}

const cores = (noise: Noise) => `${noise.others.toFixed(2)} / ${noise.postgres.toFixed(2)}`;

function tableLine(row: Row, engine: Engine, measurement: Measurement | undefined): string {
  const goal = row.goals[engine];
  const goalText = 'ratio' in goal ? `≥ ${goal.ratio.toFixed(2)}` : `p99 < ${goal.p99} ms`;
  if (!measurement) return `| ${row.path} | – | – | – | – | – | ${goalText} | not measured | – |`;
  if (measurement.kind === 'sequential') {
    const met = 'p99' in goal && measurement.p99 < goal.p99;
    return `| ${row.path} | p50 ${measurement.p50.toFixed(1)} ms | – | – | – | ${measurement.p99.toFixed(1)} ms | ${goalText} | ${met ? 'yes' : 'no'} | ${cores(measurement.noise)} |`;
  }
  const met = 'ratio' in goal ? measurement.ratio >= goal.ratio : measurement.tailor.p99 < goal.p99;
  const sameHeaders = `${fmt(measurement.sameHeaders.rps)} (${measurement.sameHeadersRatio.toFixed(3)})`;
  return `| ${row.path} | ${fmt(measurement.tailor.rps)} | ${fmt(measurement.bare.rps)} | ${measurement.ratio.toFixed(3)} | ${sameHeaders} | ${measurement.tailor.p99} ms | ${goalText} | ${met ? 'yes' : 'no'} | ${cores(measurement.noise)} |`;
}

export async function runTable(args: string[]): Promise<void> {
  const options = parseOptions(args, { 'postgres-url': '', audiences: 1000, sessions: 1_000_000 });
  const postgresUrl = options['postgres-url'] || undefined;
  const engines: Engine[] = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  const scenarioArgs: Record<string, string[]> = {
    analytics: [
      '--audiences',
      String(options.audiences),
      '--sessions',
      String(options.sessions),
      '--periods',
      '30',
    ],
  };
  const goalRows = rows(
    `analytics, ${fmt(options.audiences)} audiences × ${fmt(options.sessions)} sessions, 30 days`,
  );
  const measured = new Map<Engine, Measurement[]>();
  const ceilings: PgbenchResult[] = [];
  for (const engine of engines) {
    const all: Measurement[] = [];
    for (const scenario of [...new Set(goalRows.map((row) => row.scenario))]) {
      const url = engine === 'postgres' ? databaseUrl(postgresUrl as string, BENCH_DATABASE) : undefined;
      if (engine === 'postgres') await freshDatabase(postgresUrl as string, BENCH_DATABASE);
      try {
        all.push(...runScenario(scenario, scenarioArgs[scenario] ?? [], url));
      } finally {
        if (engine === 'postgres') await freshDatabase(postgresUrl as string, BENCH_DATABASE, true);
      }
    }
    measured.set(engine, all);
    if (engine === 'postgres') ceilings.push(...(await pgbenchRows(postgresUrl as string)));
  }

  const cpus = os.cpus();
  console.log(
    `\n## The goals of issue 24\n\n${cpus[0]?.model ?? '?'} × ${cpus.length}, node ${process.version}, ${new Date().toISOString()}. Ratio: Tailor's request rate over a minimal bare node:http server's in a process of its own answering the same body with content-type and content-length only (medians of 3 rounds; beside it, a bare server in the bench's process repeating every one of Tailor's headers); p99 of the same runs (one at a time: 200 sequential requests). The last column is the CPU that other processes / PostgreSQL took meanwhile, in cores.`,
  );
  for (const engine of engines) {
    console.log(`\n### ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}\n`);
    console.log(
      "| path | Tailor req/s | bare req/s | ratio | bare with Tailor's headers req/s (ratio) | p99 | goal | met? | others / PostgreSQL CPU |",
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    const all = measured.get(engine) ?? [];
    for (const row of goalRows) {
      console.log(
        tableLine(
          row,
          engine,
          all.find((m) => m.label === row.label && m.kind === row.kind),
        ),
      );
    }
    if (engine === 'postgres') {
      for (const ceiling of ceilings) {
        console.log(
          `| PostgreSQL's own pgbench, ${ceiling.mode}, 10 clients | ${fmt(ceiling.tps)} transactions/s | – | – | – | the database's ceiling | – | ${cores(ceiling.noise)} |`,
        );
      }
    }
  }
}
