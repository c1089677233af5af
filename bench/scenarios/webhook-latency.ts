/**
 * Webhook latency: how long after a client asks for an audience with autoPublish its subscriber
 * hears `page.version.created`, `…processed` and `…published`.
 *
 *   npm run bench -- webhook-latency [--audiences 50]
 *
 * Starts `tailor serve` as a deployment runs it (its own process, its worker beside the API, the
 * built-in personalizer, the default poll interval), a webhook receiver on 127.0.0.1 in this process
 * subscribed to the three version events, and one page. Then creates `audiences` audiences with
 * autoPublish one after another, each once the previous one's `published` arrived, and times every
 * event from the moment its create request was sent; three audiences first warm up, not counted.
 * On PostgreSQL it runs again with a `tailor serve` that runs no worker (TAILOR_WORKERS=0) and a
 * `tailor worker` process beside it: every hop of the job chain then crosses processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fmt, onCore, parseOptions, printSetting, quantile, SERVER_CORE, stopChild } from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { apiAs, type Bench, openBench, serveProcess } from '../support.ts';

const EVENT_TYPES = ['page.version.created', 'page.version.processed', 'page.version.published'] as const;
type EventType = (typeof EVENT_TYPES)[number];
const WARM_UP = 3;
/** Far beyond any poll interval: an audience whose events do not come by then is a failure. */
const PUBLISHED_WITHIN_MS = 30_000;
/** Signs nothing a worker sends; PostgreSQL nodes need one. */
const WORKER_SECRET = 'webhook-latency-bench-worker-secret-0001';
const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'tailor.js');

/** Records when each event of each audience arrived, by this process's clock; answers 204. */
async function startReceiver() {
  const arrivals = new Map<string, Map<EventType, number>>();
  const waiting = new Map<string, () => void>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString()) as {
        type: EventType;
        data: { audienceId: string };
      };
      const audience = arrivals.get(event.data.audienceId) ?? new Map<EventType, number>();
      arrivals.set(event.data.audienceId, audience);
      if (!audience.has(event.type)) audience.set(event.type, at);
      if (event.type === 'page.version.published') waiting.get(event.data.audienceId)?.();
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    /** Resolves once `audienceId`'s published event has arrived. */
    published(audienceId: string): Promise<void> {
      if (arrivals.get(audienceId)?.has('page.version.published')) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`no page.version.published for ${audienceId} within ${PUBLISHED_WITHIN_MS} ms`)),
          PUBLISHED_WITHIN_MS,
        );
        waiting.set(audienceId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** `tailor worker` on the bench's database, pinned beside the server; resolves once it runs. */
async function startWorkerProcess(bench: Bench): Promise<ChildProcess> {
  const env = {
    ...process.env,
    TAILOR_DATA_DIR: bench.dataDir,
    TAILOR_SECRET: WORKER_SECRET,
    LOG_LEVEL: 'info',
  };
  const [command, ...args] = onCore(SERVER_CORE, [process.execPath, BIN, 'worker']);
  const child = spawn(command as string, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const started = (chunk: Buffer) => {
      output += chunk;
      if (!output.includes('worker started')) return;
      child.stdout?.off('data', started).resume();
      resolve();
    };
    child.stdout?.on('data', started);
    child.once('exit', (code) => reject(new Error(`tailor worker exited with ${code}`)));
  });
  return child;
}

/** Creates the audiences one after another; answers each one's latencies from its create request. */
async function createAudiences(url: string, bench: Bench, receiver: Receiver, count: number) {
  const api = apiAs(url, bench.tenant.apiKey);
  await api('POST', '/v0/webhook_subscriptions', { url: receiver.url, events: [...EVENT_TYPES] });
  const { pageId } = await api<{ pageId: string }>('POST', '/v0/pages', {
    name: 'Spring launch',
    pageContext:
      'Brightwave helps retailers grow with analytics. It personalizes every page for every account.',
    brandId: 'brightwave',
    actions: [],
    actionCardWidgets: [],
    scripts: [],
  });
  const latencies: Record<EventType, number>[] = [];
  for (let n = 0; n < WARM_UP + count; n++) {
    const sent = performance.now();
    const { audienceId } = await api<{ audienceId: string }>('POST', `/v0/pages/${pageId}/audiences`, {
      autoPublish: true,
    });
    await receiver.published(audienceId);
    const arrived = receiver.arrivals.get(audienceId);
    if (n < WARM_UP) continue;
    const since = (type: EventType) => (arrived?.get(type) ?? Number.NaN) - sent;
    latencies.push({
      'page.version.created': since('page.version.created'),
      'page.version.processed': since('page.version.processed'),
      'page.version.published': since('page.version.published'),
    });
  }
  return latencies;
}

function report(label: string, latencies: Record<EventType, number>[]): void {
  const parts = EVENT_TYPES.map((type) => {
    const sorted = latencies.map((latency) => latency[type]).sort((a, b) => a - b);
    const ms = (q: number) => fmt(quantile(sorted, q), 1);
    return `${type.replace('page.version.', '')} p50 ${ms(0.5)} ms, p99 ${ms(0.99)} ms, max ${ms(1)} ms`;
  });
  console.log(`${label}, ${latencies.length} audiences: ${parts.join(' | ')}`);
}

/** The resident memory of a process, from /proc (Linux). */
function residentMiB(pid: number | undefined): string {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return line ? `${(Number(line[1]) / 1024).toFixed(0)} MiB` : '?';
  } catch {
    return '?';
  }
}

/** One run: `tailor serve` with its worker, or, with `separateWorker`, without one and a `tailor worker` beside it. */
async function measure(label: string, count: number, separateWorker: boolean): Promise<void> {
  const bench = await openBench('Webhook latency bench');
  // serveProcess hands the server this process's environment.
  process.env.TAILOR_WEBHOOK_ALLOW_PRIVATE = 'true';
  process.env.TAILOR_WORKERS = separateWorker ? '0' : '1';
  const receiver = await startReceiver();
  const server = await serveProcess(bench);
  const worker = separateWorker ? await startWorkerProcess(bench) : undefined;
  try {
    report(label, await createAudiences(server.url, bench, receiver, count));
    const workerMemory = worker ? `, worker ${residentMiB(worker.pid)}` : '';
    console.log(`rss: server ${residentMiB(server.pid)}${workerMemory}`);
  } finally {
    if (worker) await stopChild(worker);
    await server.close();
    await receiver.close();
  }
}

export default {
  name: 'webhook-latency',
  summary: 'from an audience create request (autoPublish) to its created, processed and published webhooks',
  usage: '--audiences 50',
  async run(args) {
    const options = parseOptions(args, { audiences: 50 });
    printSetting(
      `${options.audiences} audiences with autoPublish, one after another (${WARM_UP} more to warm up), built-in personalizer, receiver on loopback`,
    );
    await measure('worker in tailor serve', options.audiences, false);
    if (process.env.DATABASE_URL) await measure('worker in its own process', options.audiences, true);
  },
} satisfies Scenario;
