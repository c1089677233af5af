/**
 * How every scenario measures: Tailor against a bare `node:http` server answering the same bytes, in
 * the same run, so that the ratio of their request rates is Tailor's distance to what Node itself
 * can serve on this machine today. The ratio's denominator is a minimal bare server in a process of
 * its own (bench/bare-server.mjs: the same status and body, with `content-type` and `content-length`
 * only), as a reviewer's harness runs one; beside it, a second column, a bare server in this process
 * that repeats every one of Tailor's headers. Load comes from autocannon in a child process
 * (bench/load-client.mjs); rounds alternate Tailor and the two bare servers, and the medians are
 * reported with the CPU that other processes took meanwhile, which tells a quiet measurement from a
 * noisy one. Everything listens on 127.0.0.1.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** One request, as a scenario sends it. In `body`, "[<n>]" is unique per request and "[<n%K>]" cycles through K values. */
export interface Target {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface Comparison {
  tailor: LoadResult;
  /** The minimal bare server in a process of its own: the ratio's denominator. */
  bare: LoadResult;
  ratio: number;
  /** The bare server in the bench's process repeating every one of Tailor's headers, and the ratio to it. */
  sameHeaders: LoadResult;
  sameHeadersRatio: number;
}

export interface LoadOptions {
  connections?: number;
  warmupS?: number;
  measureS?: number;
  rounds?: number;
}

const LOAD_CLIENT = path.join(import.meta.dirname, 'load-client.mjs');

/** Servers (Tailor's and the bare one) run on this core, the load generator on the next one. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

const canPin = os.cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;

/** `command` run on `core` alone, where the machine has a core for each side and taskset. */
export function onCore(core: number, command: string[]): string[] {
  return canPin ? ['taskset', '-c', String(core), ...command] : command;
}

/** Stops `child` with `signal` and waits until it has exited. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Moves this process (every thread of it: the bare server lives here) onto `core`. */
function pinSelf(core: number): void {
  if (canPin) spawnSync('taskset', ['-apc', String(core), String(process.pid)]);
}

/** One answer, byte for byte: what the bare server repeats. */
interface Answer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** Headers that belong to one connection or one moment, not to the answer. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The body with its per-request placeholders filled once, as one request of a run would send it. */
function filledOnce(body: string): string {
  const once = randomBytes(6).toString('hex');
  return body.replace(/\[<n(?:%(\d+))?>\]/g, (_, modulo: string | undefined) => (modulo ? '0' : once));
}

function capture(serverUrl: string, target: Target): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${serverUrl}${target.path}`,
      { method: target.method ?? 'GET', headers: target.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: Object.fromEntries(
              Object.entries(response.headers).filter(([name]) => !PER_RESPONSE.has(name)),
            ),
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(target.body === undefined ? undefined : filledOnce(target.body));
  });
}

interface BareServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A server in this process that answers every request with `answer`, every header of it included;
 * the request's body is read and dropped.
 */
async function sameHeadersServer(answer: Answer): Promise<BareServer> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The minimal bare server (bench/bare-server.mjs) in a process of its own on the servers' core, answering `answer`. */
async function minimalBareServer(answer: Answer): Promise<BareServer> {
  const bodyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-bare-')), 'body');
  fs.writeFileSync(bodyFile, answer.body);
  const contentType = String(answer.headers['content-type'] ?? 'application/octet-stream');
  const [command, ...args] = onCore(SERVER_CORE, [
    process.execPath,
    path.join(import.meta.dirname, 'bare-server.mjs'),
    String(answer.status),
    contentType,
    bodyFile,
  ]);
  const child = spawn(command as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await stopChild(child);
      fs.rmSync(path.dirname(bodyFile), { recursive: true, force: true });
    },
  };
}

interface ClientJob {
  mode: 'load' | 'sequential';
  url: string;
  target: Target;
  connections?: number;
  duration?: number;
  count?: number;
  /** Requests a second across the connections (mode "load"); as fast as they go without it. */
  rate?: number;
}

function clientCommand({ url, target, ...rest }: ClientJob): string[] {
  const job = {
    ...rest,
    url: `${url}${target.path}`,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    body: target.body,
  };
  return onCore(LOAD_CORE, [process.execPath, LOAD_CLIENT, JSON.stringify(job)]);
}

async function runClient<T>(job: ClientJob): Promise<T> {
  const [command, ...args] = clientCommand(job);
  const { stdout } = await promisify(execFile)(command as string, args, { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as T;
}

interface AutocannonJson {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

async function load(url: string, target: Target, connections: number, duration: number): Promise<LoadResult> {
  const result = await runClient<AutocannonJson>({ mode: 'load', url, target, connections, duration });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function medians(runs: LoadResult[]): LoadResult {
  return {
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

/** The value at quantile `q` of ascending `sorted`. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * Drives Tailor and a bare server answering Tailor's own answer to `target`, alternating for
 * `rounds` rounds of a warm-up (not counted) and a measured run each; prints one line with the
 * medians and the ratio of request rates.
 */
export async function compareWithBare(
  label: string,
  serverUrl: string,
  target: Target,
  { connections = 50, warmupS = 2, measureS = 5, rounds = 3 }: LoadOptions = {},
): Promise<Comparison> {
  pinSelf(SERVER_CORE);
  const answer = await capture(serverUrl, target);
  if (answer.status >= 400) throw new Error(`${label}: status ${answer.status}: ${answer.body.toString()}`);
  const bare = await minimalBareServer(answer);
  const sameHeaders = await sameHeadersServer(answer);
  const measure = async (url: string) => {
    await load(url, target, connections, warmupS);
    return load(url, target, connections, measureS);
  };
  const tailorRuns: LoadResult[] = [];
  const bareRuns: LoadResult[] = [];
  const sameHeadersRuns: LoadResult[] = [];
  const { noise } = await withNoise(async () => {
    try {
      for (let round = 0; round < rounds; round++) {
        tailorRuns.push(await measure(serverUrl));
        bareRuns.push(await measure(bare.url));
        sameHeadersRuns.push(await measure(sameHeaders.url));
      }
    } finally {
      await bare.close();
      await sameHeaders.close();
    }
  });
  const tailor = medians(tailorRuns);
  const bareResult = medians(bareRuns);
  const sameHeadersResult = medians(sameHeadersRuns);
  const ratio = tailor.rps / bareResult.rps;
  const sameHeadersRatio = tailor.rps / sameHeadersResult.rps;
  console.log(
    `${label}: Tailor ${fmt(tailor.rps)} req/s, p50 ${tailor.p50} ms, p99 ${tailor.p99} ms, errors ${tailor.errors}` +
      ` | bare ${fmt(bareResult.rps)} req/s, p50 ${bareResult.p50} ms, p99 ${bareResult.p99} ms` +
      ` | ratio ${ratio.toFixed(3)} | ${answer.body.length} bytes, status ${answer.status}` +
      ` | bare with Tailor's headers ${fmt(sameHeadersResult.rps)} req/s, ratio ${sameHeadersRatio.toFixed(3)}` +
      ` | Tailor rounds ${tailorRuns.map((run) => fmt(run.rps)).join(', ')} | ${describeNoise(noise)}`,
  );
  const comparison = {
    tailor,
    bare: bareResult,
    ratio,
    sameHeaders: sameHeadersResult,
    sameHeadersRatio,
  };
  record({ label, kind: 'load', ...comparison, noise });
  return comparison;
}

/** Longer than any measurement: arrivals go on until stopped. */
const ARRIVING_FOR_S = 24 * 60 * 60;

/**
 * `rate` requests a second to `url` from a load client of their own, from now until `stop`: work
 * arriving while a scenario measures something else (event batches while analytics is read).
 */
export function startArrivals(url: string, target: Target, rate: number): { stop(): Promise<void> } {
  const [command, ...args] = clientCommand({
    mode: 'load',
    url,
    target,
    connections: 4,
    duration: ARRIVING_FOR_S,
    rate,
  });
  const child = spawn(command as string, args, { stdio: 'ignore' });
  return {
    stop: () => stopChild(child, 'SIGKILL'),
  };
}

/** `count` requests one at a time on one keep-alive connection: the latency without queueing. */
export async function sequentialLatency(
  label: string,
  serverUrl: string,
  target: Target,
  count = 200,
): Promise<{ p50: number; p99: number; max: number }> {
  pinSelf(SERVER_CORE);
  const { result: measured, noise } = await withNoise(() =>
    runClient<number[]>({ mode: 'sequential', url: serverUrl, target, count }),
  );
  const latencies = measured.sort((a, b) => a - b);
  const result = {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] as number,
  };
  console.log(
    `${label}, ${count} sequential requests: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, max ${result.max.toFixed(2)} ms | ${describeNoise(noise)}`,
  );
  record({ label, kind: 'sequential', p50: result.p50, p99: result.p99, noise });
  return result;
}

/** The parts of a run's setting that decide its figures. */
export function printSetting(facts: string): void {
  const cpus = os.cpus();
  console.log(
    `database: ${process.env.DATABASE_URL ? 'postgres' : 'sqlite'}; machine: ${cpus[0]?.model ?? '?'} × ${cpus.length}, node ${process.version}, load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  console.log(facts);
}

/** The resident memory, now and at its peak, of the server: this process or the one with `pid`. */
export function printMemory(pid: number = process.pid): void {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) =>
    Math.round(Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))?.[1] ?? 0) / 1024);
  console.log(`server memory: rss ${mib('VmRSS')} MiB, peak ${mib('VmHWM')} MiB`);
}

/** `--name value` pairs over `defaults`; a value is a number where the default is one. */
export function parseOptions<T extends Record<string, number | string>>(args: string[], defaults: T): T {
  const options: Record<string, number | string> = { ...defaults };
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]?.replace(/^--/, '') ?? '';
    const value = args[i + 1];
    if (!(name in defaults) || value === undefined) {
      throw new Error(`unknown option ${args[i]}; options: ${Object.keys(defaults).join(', ')}`);
    }
    options[name] = typeof defaults[name] === 'number' ? Number(value) : value;
  }
  return options as T;
}

/** utime, stime, cutime and cstime of a /proc/<pid>/stat line: fields 14-17, 12-15 after "pid (comm) ". */
function processTicks(stat: string, withChildren: boolean): number {
  const fields = stat
    .slice(stat.lastIndexOf(') ') + 2)
    .split(' ')
    .map(Number);
  return fields.slice(11, withChildren ? 15 : 13).reduce((sum, value) => sum + value, 0);
}

interface Ticks {
  machine: number;
  own: number;
  postgres: Map<string, number>;
}

/**
 * CPU time, in clock ticks: of the whole machine, of this process with its finished children (the
 * load clients), and of each process of the local PostgreSQL server. Linux only; zeros elsewhere.
 */
function cpuTicks(): Ticks {
  try {
    const [user, nice, system, , , irq, softirq, steal] = (
      fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] as string
    )
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number) as number[];
    const postgres = new Map<string, number>();
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.includes(' (postgres) ')) postgres.set(pid, processTicks(stat, false));
      } catch {
        // ended meanwhile
      }
    }
    const machine = [user, nice, system, irq, softirq, steal].reduce(
      (sum: number, value) => sum + (value ?? 0),
      0,
    );
    return { machine, own: processTicks(fs.readFileSync('/proc/self/stat', 'utf8'), true), postgres };
  } catch {
    return { machine: 0, own: 0, postgres: new Map() };
  }
}

const TICKS_PER_SECOND = 100;

/** The CPU that PostgreSQL and every other process took during a measurement, in cores. */
export interface Noise {
  postgres: number;
  others: number;
}

/** The CPU that PostgreSQL and every other process took between two readings. */
function noiseBetween(before: Ticks, after: Ticks, since: number): Noise {
  const cores = (ticks: number) => ticks / TICKS_PER_SECOND / ((Date.now() - since) / 1000);
  // A process that ended meanwhile is left out; one that started counts from zero.
  let postgres = 0;
  for (const [pid, ticks] of after.postgres) postgres += ticks - (before.postgres.get(pid) ?? 0);
  const others = after.machine - before.machine - (after.own - before.own) - postgres;
  return { postgres: cores(postgres), others: cores(others) };
}

export function describeNoise({ postgres, others }: Noise): string {
  return `CPU of PostgreSQL ${postgres.toFixed(2)} cores, of other processes ${others.toFixed(2)} cores`;
}

/** Runs `work`, and answers its result with the CPU that PostgreSQL and other processes took meanwhile. */
export async function withNoise<T>(work: () => Promise<T>): Promise<{ result: T; noise: Noise }> {
  const before = cpuTicks();
  const started = Date.now();
  const result = await work();
  return { result, noise: noiseBetween(before, cpuTicks(), started) };
}

/** One measurement as `npm run bench -- table` collects it from the scenarios it runs. */
export type Measurement =
  | ({ label: string; kind: 'load'; noise: Noise } & Comparison)
  | { label: string; kind: 'sequential'; p50: number; p99: number; noise: Noise };

/** With BENCH_RESULTS=<file>, each measurement is also appended to the file, one JSON line each. */
function record(measurement: Measurement): void {
  const file = process.env.BENCH_RESULTS;
  if (file) fs.appendFileSync(file, `${JSON.stringify(measurement)}\n`);
}
