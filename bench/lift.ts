/**
 * The lift endpoint of one audience with a holdout, over a million sessions.
 *
 *   npx tsx bench/lift.ts [sessions]            # SQLite in a temp dir
 *   DATABASE_URL=postgres://… TAILOR_SECRET=… npx tsx bench/lift.ts [sessions]
 *
 * Seeds one page with one audience (holdout 10%) and `sessions` sessions (default 1,000,000) spread
 * over the last 90 days, 10% of them in the baseline arm, written straight into `sessions` with the
 * hourly rollups per arm that ingestion keeps. Then, for each period: fetches the lift answer once,
 * serves exactly those bytes from a bare `node:http` server, and drives both in turn with autocannon
 * (a separate process, so the load generator never shares the servers' event loop): 10 connections,
 * 2 s warm-up not counted, 5 s measured, Tailor and bare alternating for 3 rounds; prints the medians
 * and the ratio Tailor/bare, with the CPU PostgreSQL and other processes took meanwhile (noise).
 * Last, 200 sequential requests per period, p50/p99: the direct check of the latency, without
 * queueing. Everything listens on 127.0.0.1; nothing leaves the machine.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createAudience } from '../src/workflows/audience-versions/service.ts';
import { benchPage, openBench, rollUpSessions, serveBench } from './support.ts';

const total = Number(process.argv[2] ?? 1_000_000);
const BATCH = 1000;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;
const ROUNDS = 3;
const CONNECTIONS = 10;
const WARMUP_S = 2;
const MEASURE_S = 5;
const SEQUENTIAL = 200;
const AUTOCANNON = path.join(import.meta.dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');

const bench = await openBench('Lift bench');
const { database, tenant, db } = bench;
const page = await benchPage(db);
const audienceId = (await createAudience(db, page.pageId, { holdoutPercent: 10 })).audienceId;

// Session n: baseline when n % 10 === 3 (10%). A personalized session converts (a CTA click) when
// n % 13 === 0 (7.7%), a baseline one when n % 17 === 0 (5.9%); 13 and 17 are prime to 10, so each
// arm gets its share evenly over the 90 days.
const now = Date.now();
const seedStart = Date.now();
for (let done = 0; done < total; done += BATCH) {
  const rows = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
    const n = done + i;
    const baseline = n % 10 === 3;
    return {
      tenant_id: tenant.tenantId,
      id: `bench-lift-${n}`,
      page_id: page.pageId,
      audience_id: audienceId,
      page_link_id: 'pagelink_bench',
      arm: baseline ? 'baseline' : 'personalized',
      started_at: now - Math.floor((n / total) * 90 * DAY),
      last_event_at: now,
      interactions: n % 4,
      cta_clicks: (baseline ? n % 17 : n % 13) === 0 ? 1 : 0,
      form_submits: 0,
      max_scroll_depth: n % 101,
      time_spent_ms: (n % 60) * 1000,
    } as const;
  });
  await database.acrossTenants.insertInto('sessions').values(rows).execute();
}
await rollUpSessions(bench);
const seedSeconds = (Date.now() - seedStart) / 1000;

const server = await serveBench(bench);
const tailorUrl = server.url;

/** One answer, byte for byte: what the bare server repeats. */
interface Answer {
  status: number;
  headers: http.OutgoingHttpHeaders;
  body: Buffer;
}

/** Headers that belong to one connection or one moment, not to the answer. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function capture(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (response) => {
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
      })
      .on('error', reject);
  });
}

// The bare server: answers every request with the current scenario's bytes and headers.
let current: Answer = { status: 503, headers: {}, body: Buffer.alloc(0) };
const bare = http.createServer((request, response) => {
  request.resume();
  response.writeHead(current.status, { ...current.headers, 'content-length': current.body.length });
  response.end(current.body);
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

interface AutocannonJson {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** autocannon in its own process: the load generator must not share the servers' event loop. */
async function autocannon(url: string, options: string[]): Promise<Run> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [AUTOCANNON, '--json', '-H', `x-api-key=${tenant.apiKey}`, ...options, url],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as AutocannonJson;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/**
 * `SEQUENTIAL` requests one after the other on one keep-alive connection, after 20 not counted,
 * timed with hrtime in a process of their own (autocannon reports whole milliseconds).
 */
const SEQUENTIAL_CLIENT = `
const http = require('node:http');
const [url, apiKey, count] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const once = () => new Promise((resolve, reject) => {
  const started = process.hrtime.bigint();
  http.get(url, { agent, headers: { 'x-api-key': apiKey } }, (response) => {
    response.resume();
    response.on('end', () => resolve([response.statusCode, Number(process.hrtime.bigint() - started) / 1e6]));
  }).on('error', reject);
});
(async () => {
  for (let i = 0; i < 20; i++) await once();
  const latencies = [];
  for (let i = 0; i < Number(count); i++) {
    const [status, ms] = await once();
    if (status !== 200) throw new Error('status ' + status);
    latencies.push(ms);
  }
  agent.destroy();
  console.log(JSON.stringify(latencies));
})();
`;

async function sequential(url: string): Promise<{ p50: number; p99: number; max: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '-e',
    SEQUENTIAL_CLIENT,
    url,
    tenant.apiKey,
    String(SEQUENTIAL),
  ]);
  const latencies = (JSON.parse(stdout) as number[]).sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] as number;
  return { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] as number };
}

/** utime, stime, cutime and cstime of a /proc/<pid>/stat line: fields 14-17, 12-15 after "pid (comm) ". */
function processTicks(stat: string, withChildren: boolean): number {
  const fields = (stat.slice(stat.lastIndexOf(') ') + 2) as string).split(' ').map(Number);
  return fields.slice(11, withChildren ? 15 : 13).reduce((sum, value) => sum + value, 0);
}

/**
 * CPU time, in clock ticks: of the whole machine, of this process with its finished children (the
 * autocannon runs), and of each process of the local PostgreSQL server (by pid). What is left is what other
 * processes took during a measurement: the noise to note. Linux only; zeros elsewhere.
 */
function cpuTicks(): { machine: number; own: number; postgres: Map<string, number> } {
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
        // gone meanwhile
      }
    }
    return {
      machine: [user, nice, system, irq, softirq, steal].reduce(
        (sum: number, value) => sum + (value ?? 0),
        0,
      ),
      own: processTicks(fs.readFileSync('/proc/self/stat', 'utf8'), true),
      postgres,
    };
  } catch {
    return { machine: 0, own: 0, postgres: new Map() };
  }
}
const TICKS_PER_SECOND = 100;

/** The CPU that PostgreSQL and every other process took between two readings, in cores. */
function noise(
  before: ReturnType<typeof cpuTicks>,
  after: ReturnType<typeof cpuTicks>,
  since: number,
): string {
  const cores = (ticks: number) => (ticks / TICKS_PER_SECOND / ((Date.now() - since) / 1000)).toFixed(2);
  // A process that ended meanwhile is left out; one that started counts from zero.
  let postgres = 0;
  for (const [pid, ticks] of after.postgres) postgres += ticks - (before.postgres.get(pid) ?? 0);
  const others = after.machine - before.machine - (after.own - before.own) - postgres;
  return `CPU of PostgreSQL ${cores(postgres)} cores, of other processes ${cores(others)} cores`;
}

async function load(url: string): Promise<Run> {
  await autocannon(url, ['-c', String(CONNECTIONS), '-d', String(WARMUP_S)]);
  return autocannon(url, ['-c', String(CONNECTIONS), '-d', String(MEASURE_S)]);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const medians = (runs: Run[]) => ({
  rps: median(runs.map((run) => run.rps)),
  p50: median(runs.map((run) => run.p50)),
  p99: median(runs.map((run) => run.p99)),
  errors: runs.reduce((sum, run) => sum + run.errors, 0),
});

const iso = (ms: number) => new Date(ms).toISOString();
const lift = (start: number, end: number) =>
  `/v0/pages/${page.pageId}/analytics/audiences/${audienceId}/lift?startDate=${iso(start)}&endDate=${iso(end)}`;
// Hour-aligned periods end with the hour holding the newest session; the unaligned one ends at
// 47:23 past the hour before, so both its edges are partial hours read from the sessions.
const hourEnd = Math.floor(now / HOUR) * HOUR + HOUR;
const offEnd = hourEnd - HOUR - 13 * MINUTE + 23_000;
const scenarios: [string, string][] = [
  ['30 days to now (hour-aligned)', lift(hourEnd - 30 * DAY, hourEnd)],
  ['90 days (hour-aligned)', lift(hourEnd - 90 * DAY, hourEnd)],
  ['1 day (hour-aligned)', lift(hourEnd - DAY, hourEnd)],
  ['30 days, edges off the hour', lift(offEnd - 30 * DAY, offEnd)],
];

const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

console.log(
  `database: ${database.dialect.name}; sessions: ${fmt(total)} (1 audience, holdout 10%); seeded in ${seedSeconds.toFixed(1)} s`,
);
console.log(
  `machine: ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}; node ${process.version}; load average ${os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
console.log(
  `autocannon: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${MEASURE_S} s measured, Tailor and bare alternating, ${ROUNDS} rounds, medians`,
);

const answers = new Map<string, Answer>();
for (const [name, pathAndQuery] of scenarios) {
  const answer = await capture(`${tailorUrl}${pathAndQuery}`, { 'x-api-key': tenant.apiKey });
  if (answer.status !== 200) throw new Error(`${name}: status ${answer.status}: ${answer.body.toString()}`);
  answers.set(name, answer);
  const body = JSON.parse(answer.body.toString()) as {
    personalized: { sessions: number; conversions: number };
    baseline: { sessions: number; conversions: number };
    relativeLift: number | null;
    chanceToBeatBaseline: number | null;
    srm: { pValue: number | null; mismatch: boolean };
    daily: unknown[];
  };
  console.log(
    `${name}: ${answer.body.length} bytes; personalized ${body.personalized.conversions}/${body.personalized.sessions}, baseline ${body.baseline.conversions}/${body.baseline.sessions}, relative lift ${body.relativeLift?.toFixed(3)}, chance to beat ${body.chanceToBeatBaseline?.toFixed(4)}, srm p ${body.srm.pValue?.toFixed(3)}, ${body.daily.length} days`,
  );
}

for (const [name, pathAndQuery] of scenarios) {
  current = answers.get(name) as Answer;
  const tailorRuns: Run[] = [];
  const bareRuns: Run[] = [];
  const before = cpuTicks();
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) {
    tailorRuns.push(await load(`${tailorUrl}${pathAndQuery}`));
    bareRuns.push(await load(`${bareUrl}${pathAndQuery}`));
  }
  const after = cpuTicks();
  const tailor = medians(tailorRuns);
  const bareMedian = medians(bareRuns);
  console.log(
    `${name}: Tailor ${fmt(tailor.rps)} req/s, p50 ${tailor.p50} ms, p99 ${tailor.p99} ms, errors ${tailor.errors} | bare ${fmt(bareMedian.rps)} req/s, p50 ${bareMedian.p50} ms, p99 ${bareMedian.p99} ms | ratio ${(tailor.rps / bareMedian.rps).toFixed(3)} | Tailor rounds: ${tailorRuns.map((run) => `${fmt(run.rps)} req/s p99 ${run.p99} ms`).join(', ')} | ${noise(before, after, started)}`,
  );
}

// The direct check of the latency goal: one request at a time, so none waits behind another.
for (const [name, pathAndQuery] of scenarios) {
  current = answers.get(name) as Answer;
  const before = cpuTicks();
  const started = Date.now();
  const tailor = await sequential(`${tailorUrl}${pathAndQuery}`);
  const bareLatencies = await sequential(`${bareUrl}${pathAndQuery}`);
  const after = cpuTicks();
  console.log(
    `sequential, ${name}, ${SEQUENTIAL} requests: Tailor p50 ${tailor.p50.toFixed(2)} ms, p99 ${tailor.p99.toFixed(2)} ms, max ${tailor.max.toFixed(2)} ms | bare p50 ${bareLatencies.p50.toFixed(2)} ms, p99 ${bareLatencies.p99.toFixed(2)} ms | ${noise(before, after, started)}`,
  );
}
console.log(`rss: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`);

await new Promise((resolve) => bare.close(resolve));
await server.close();
