import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, onPostgres, TEST_SECRET } from './server.ts';

const BIN = path.resolve('bin/tailor.js');

export interface Environment {
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** An empty database of the kind under test, as the environment a `tailor` process reads. */
export async function freshEnvironment(): Promise<Environment> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-cli-'));
  const base = { TAILOR_DATA_DIR: dataDir, LOG_LEVEL: 'warn', TAILOR_RATE_LIMIT_RPS: '0' };
  if (!onPostgres)
    return { env: base, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  const name = `tailor_cli_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  url.pathname = `/${name}`;
  return {
    env: { ...base, DATABASE_URL: url.toString(), TAILOR_SECRET: TEST_SECRET },
    async drop() {
      const cleaner = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await cleaner.connect();
      await cleaner.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleaner.end();
    },
  };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function tailor(args: string[], env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export { freePort };

export interface Spawned {
  child: ChildProcess;
  /** Everything the process wrote, stdout and stderr interleaved. */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts a `tailor` command in the background. */
export function spawnTailor(args: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export interface RunningServer extends Spawned {
  url: string;
  /** The pages origin. */
  pagesUrl: string;
}

/**
 * Starts `tailor serve` (on `port`, else a free one; its pages origin on `env.TAILOR_PAGES_PORT`,
 * else a free one) and waits until it answers /healthz.
 */
export async function startServe(env: Record<string, string>, port?: number): Promise<RunningServer> {
  const listening = port ?? (await freePort());
  const pagesPort = env.TAILOR_PAGES_PORT ?? String(await freePort());
  const spawned = spawnTailor(['serve'], {
    ...env,
    PORT: String(listening),
    TAILOR_PAGES_PORT: pagesPort,
    HOST: '127.0.0.1',
  });
  const url = `http://127.0.0.1:${listening}`;
  const pagesUrl = `http://127.0.0.1:${pagesPort}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    if (spawned.child.exitCode !== null) throw new Error(`tailor serve exited early:\n${spawned.output()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { ...spawned, url, pagesUrl };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  spawned.child.kill('SIGKILL');
  throw new Error(`tailor serve did not start:\n${spawned.output()}`);
}
