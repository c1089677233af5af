import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { sqliteFile } from './db/connection.ts';

/**
 * What a running `tailor serve` was started with, kept in its data directory so that commands run
 * beside it (`tailor demo`) can tell when their environment points somewhere else: another database,
 * or addresses the server does not answer at.
 */
export interface ServerRecord {
  pid: number;
  /** The database, without its password. */
  database: string;
  publicUrl: string;
  pagesUrl: string;
}

/** Where a server's settings differ from a command's, by the variable that sets each. */
export interface Difference {
  variable: string;
  server: string;
  here: string;
}

const FILE = 'server.json';

function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return `SQLite at ${sqliteFile(config.dataDir)}`;
  const url = new URL(config.databaseUrl);
  url.password = '';
  return url.toString();
}

export function recordOf(config: Config, pid = process.pid): ServerRecord {
  return { pid, database: describeDatabase(config), publicUrl: config.publicUrl, pagesUrl: config.pagesUrl };
}

function fileOf(config: Config): string {
  return path.join(config.dataDir, FILE);
}

/**
 * Records this server; the returned function takes the record back when the server stops. A data
 * directory that cannot be written keeps no record: the server runs all the same.
 */
export function recordServer(config: Config): () => void {
  try {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(fileOf(config), `${JSON.stringify(recordOf(config), null, 2)}\n`, { mode: 0o600 });
  } catch {
    return () => {};
  }
  return () => {
    if (runningServer(config)?.pid === process.pid) rmSync(fileOf(config), { force: true });
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The server recorded in this data directory, when one is still running. */
export function runningServer(config: Config): ServerRecord | undefined {
  let record: ServerRecord;
  try {
    record = JSON.parse(readFileSync(fileOf(config), 'utf8')) as ServerRecord;
  } catch {
    return undefined;
  }
  return alive(record.pid) ? record : undefined;
}

/** How `config` differs from the running server's, in the variables a user would set to match it. */
export function differences(server: ServerRecord, config: Config): Difference[] {
  const here = recordOf(config);
  const fields = [
    ['database', 'DATABASE_URL (or TAILOR_DATA_DIR)'],
    ['publicUrl', 'PORT (or TAILOR_PUBLIC_URL)'],
    ['pagesUrl', 'TAILOR_PAGES_PORT (or TAILOR_PAGES_URL)'],
  ] as const;
  return fields
    .filter(([field]) => server[field] !== here[field])
    .map(([field, variable]) => ({ variable, server: server[field], here: here[field] }));
}
