import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connection.ts';
import { GENERATE_JOB } from '../../src/workflows/audience-versions/service.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { freePort, freshEnvironment, type Spawned, spawnTailor, startServe } from '../helpers/process.ts';

// What the fault scenarios share: `tailor` processes to kill and start again, the load they are
// killed under, the ledger of what they acknowledged, and the checks that none of it was lost.

function knob(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer (got ${raw})`);
  return value;
}

/** Crashes of the kill -9 scenario; the default keeps the suite within about three minutes. */
export const FAULT_CYCLES = knob('FAULT_CYCLES', 5);
/** Concurrent writers of every load. */
export const FAULT_WRITERS = knob('FAULT_WRITERS', 4);

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` after the current test, pass or fail, the latest registered first. */
export function afterTest(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}

/** Prints what a scenario measured, for the record of a run. */
export function report(scenario: string, measured: Record<string, unknown>): void {
  console.info(`[fault] ${scenario}: ${JSON.stringify(measured)}`);
}

/** Waits until `condition` answers a value, polling; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  condition: () => Promise<T | undefined | false>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

const API_KEY = 'fault-suite-bootstrap-key-long-enough-0001';

/**
 * Webhook retries a second or two apart, so that deliveries to a receiver that was away are retried
 * within a test. Together (about 20 s at the least) they outlast every outage the tests make, so no
 * delivery runs out of attempts.
 */
const QUICK_WEBHOOK_RETRIES = '1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s';

export interface FaultEnvironment {
  /** What every node of the test is started with. */
  env: Record<string, string>;
  /** The same database, opened by the test: for what the API does not show (job leases). */
  inspect: Database;
}

/** A fresh database, and the environment of nodes on it: the first API key, local webhooks, no rate limits. */
export async function faultEnvironment(overrides: Record<string, string> = {}): Promise<FaultEnvironment> {
  const environment = await freshEnvironment();
  const env: Record<string, string> = {
    ...environment.env,
    TAILOR_BOOTSTRAP_API_KEY: API_KEY,
    // The load is one client: per-IP limits would turn part of it into 429s.
    TAILOR_PUBLIC_RATE_LIMIT_RPS: '0',
    TAILOR_WEBHOOK_ALLOW_PRIVATE: 'true',
    TAILOR_WEBHOOK_RETRY_SCHEDULE: QUICK_WEBHOOK_RETRIES,
    ...overrides,
  };
  const inspect = openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TAILOR_DATA_DIR as string });
  afterTest(async () => {
    await inspect.close();
    await environment.drop();
  });
  return { env, inspect };
}

/** A `tailor serve` or `tailor worker` process that a test stops and starts again, on one port and database. */
export class TailorNode {
  private spawned: Spawned | undefined;

  private constructor(
    readonly command: 'serve' | 'worker',
    private readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  /** Starts the node (a server answers /healthz by then); it is killed after the test. */
  static async start(command: 'serve' | 'worker', env: Record<string, string>): Promise<TailorNode> {
    const node = new TailorNode(command, env, await freePort());
    afterTest(() => node.kill());
    await node.start();
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** False once the process has exited; for a node nobody stopped, that is a crash. */
  get running(): boolean {
    const child = this.spawned?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Fails the test, with the process's last words, when it has exited: nobody stopped it, so it crashed. */
  assertRunning(): void {
    if (!this.running)
      throw new Error(`tailor ${this.command} died:\n${this.spawned?.output().slice(-4_000)}`);
  }

  async start(): Promise<void> {
    this.spawned =
      this.command === 'serve' ? await startServe(this.env, this.port) : spawnTailor(['worker'], this.env);
  }

  /** Stops the process, by default the way a crash does (kill -9), and waits until it is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    const spawned = this.spawned;
    if (!spawned || !this.running) return null;
    spawned.child.kill(signal);
    return spawned.exited;
  }
}

/** How long a test waits for any one answer; a server that takes longer hangs. */
const ANSWER_TIMEOUT_MS = 20_000;

export interface Answer {
  /** The node asked. */
  url: string;
  method: string;
  path: string;
  /** 0 when no answer came: the connection was refused or broken, or it timed out. */
  status: number;
  body: any;
  headers: Headers | undefined;
  startedAt: number;
  endedAt: number;
}

/** One request to a node with the API key; never throws, so that a dead node is an answer too. */
export async function call(
  url: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const startedAt = Date.now();
  const answer = { url, method, path, startedAt };
  try {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        'x-api-key': API_KEY,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
    return {
      ...answer,
      status: response.status,
      body: json ? JSON.parse(text) : text,
      headers: response.headers,
      endedAt: Date.now(),
    };
  } catch (error) {
    return { ...answer, status: 0, body: String(error), headers: undefined, endedAt: Date.now() };
  }
}

export function isSuccess(answer: Answer): boolean {
  return answer.status >= 200 && answer.status < 300;
}

/** `call` that must succeed: for setup and read-back, where any other answer fails the test. */
async function succeed(
  url: string,
  method: string,
  path: string,
  options?: { body?: unknown; headers?: Record<string, string> },
): Promise<any> {
  const answer = await call(url, method, path, options);
  expect(isSuccess(answer), `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`).toBe(true);
  return answer.body;
}

/** Every item of a paged list. */
export async function listAll(url: string, path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await succeed(url, 'GET', `${path}${path.includes('?') ? '&' : '?'}${query}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** Runs `check` on every item, a few at a time. */
async function forEachConcurrently<T>(
  items: T[],
  check: (item: T) => Promise<void>,
  width = 16,
): Promise<void> {
  for (let start = 0; start < items.length; start += width) {
    await Promise.all(items.slice(start, start + width).map(check));
  }
}

const PAGE = {
  name: 'Fault page',
  pageContext: 'Tailor keeps every acknowledged write.',
  brandId: 'fault',
  actions: [{ actionId: 'contact', buttonTitle: 'Talk to sales', actionType: 'form' }],
  actionCardWidgets: [],
  scripts: [],
};

/** A published page with an audience and a link to it, and the signed token of its public page. */
export interface Site {
  pageId: string;
  audienceId: string;
  token: string;
}

/** Sets up a site the way a visitor finds it: the token is the one the public page carries. */
export async function publishSite(url: string): Promise<Site> {
  const page = await succeed(url, 'POST', '/v0/pages', { body: PAGE });
  await succeed(url, 'POST', `/v0/pages/${page.pageId}/publish`);
  const audience = await succeed(url, 'POST', `/v0/pages/${page.pageId}/audiences`, { body: {} });
  await succeed(url, 'POST', '/v0/page_links', {
    body: { path: '/fault', target: { targetType: 'audience', audienceId: audience.audienceId } },
  });
  const html: string = await succeed(url, 'GET', '/p/default/fault');
  const token = html.match(/data-tailor-token="([^"]+)"/)?.[1];
  expect(token, html).toBeDefined();
  return { pageId: page.pageId, audienceId: audience.audienceId, token: token as string };
}

/** Subscribes a receiver to every kind of event; answers the subscription's id. */
export async function subscribe(url: string, receiverUrl: string): Promise<string> {
  return (await succeed(url, 'POST', '/v0/webhook_subscriptions', { body: { url: receiverUrl } }))
    .subscriptionId;
}

export type Write = 'person' | 'page' | 'audience' | 'session' | 'form';
const EVERY_WRITE: Write[] = ['person', 'page', 'audience', 'session', 'form'];

/** A write the server answered with 2xx, and what identifies it. */
export type Acknowledged =
  | { write: 'person'; personId: string }
  | { write: 'page'; pageId: string }
  | { write: 'audience'; audienceId: string }
  | { write: 'session'; sessionId: string }
  | { write: 'form'; formSubmissionId: string; email: string };

interface WriteRequest {
  method: string;
  path: string;
  body: unknown;
  headers?: Record<string, string>;
  acknowledged(body: any): Acknowledged;
}

/** Each kind of write, made unique by `tag`. Persons carry an idempotency key, so its rows are under load too. */
const WRITES: Record<Write, (site: Site, tag: string) => WriteRequest> = {
  person: (_site, tag) => ({
    method: 'POST',
    path: '/v0/persons',
    body: { name: `Person ${tag}` },
    headers: { 'idempotency-key': `person-${tag}` },
    acknowledged: (body) => ({ write: 'person', personId: body.personId }),
  }),
  page: (_site, tag) => ({
    method: 'POST',
    path: '/v0/pages',
    body: { ...PAGE, name: `Page ${tag}` },
    acknowledged: (body) => ({ write: 'page', pageId: body.pageId }),
  }),
  audience: (site) => ({
    method: 'POST',
    path: `/v0/pages/${site.pageId}/audiences`,
    body: {},
    acknowledged: (body) => ({ write: 'audience', audienceId: body.audienceId }),
  }),
  session: (site, tag) => {
    const at = Date.now();
    const sessionId = `fault-${tag}`;
    return {
      method: 'POST',
      path: '/v0/public/events',
      body: {
        token: site.token,
        sessionId,
        events: [
          { type: 'session_start', at },
          { type: 'interaction', at },
        ],
      },
      acknowledged: () => ({ write: 'session', sessionId }),
    };
  },
  form: (site, tag) => {
    const email = `visitor-${tag}@globex.com`;
    return {
      method: 'POST',
      path: '/v0/public/forms',
      body: { token: site.token, email, fields: { name: `Visitor ${tag}` } },
      acknowledged: (body) => ({ write: 'form', formSubmissionId: body.formSubmissionId, email }),
    };
  },
};

export interface Load {
  /** Every answer, in the order they came. */
  readonly answers: Answer[];
  readonly acknowledged: Acknowledged[];
  /** Waits for the writes in flight, and makes no more. */
  stop(): Promise<void>;
}

export interface LoadOptions {
  /** The nodes to spread the writes over, asked again before each write (nodes may come and go). */
  targets: () => string[];
  site: Site;
  /** The kinds of write to make (default: every kind). */
  writes?: Write[];
  writers?: number;
}

/** Pause of a writer between writes, and after finding no node to answer (one being restarted). */
const WRITE_PAUSE_MS = 25;
const NO_ANSWER_PAUSE_MS = 50;

/** Concurrent writers, each writing one kind of `writes` after another at random, until stopped. */
export function startLoad({
  targets,
  site,
  writes = EVERY_WRITE,
  writers = FAULT_WRITERS,
}: LoadOptions): Load {
  const answers: Answer[] = [];
  const acknowledged: Acknowledged[] = [];
  const run = randomBytes(3).toString('hex');
  let stopped = false;
  const writer = async (index: number) => {
    for (let n = 0; !stopped; n++) {
      const nodes = targets();
      const url = nodes[(index + n) % nodes.length] as string;
      const write = writes[Math.floor(Math.random() * writes.length)] as Write;
      const request = WRITES[write](site, `${run}-${index}-${n}`);
      const answer = await call(url, request.method, request.path, request);
      answers.push(answer);
      if (isSuccess(answer)) acknowledged.push(request.acknowledged(answer.body));
      await sleep(answer.status === 0 ? NO_ANSWER_PAUSE_MS : WRITE_PAUSE_MS);
    }
  };
  const loops = Array.from({ length: writers }, (_, index) => writer(index));
  return {
    answers,
    acknowledged,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** How many acknowledged writes there are of each kind. */
export function countByWrite(acknowledged: Acknowledged[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { write } of acknowledged) counts[write] = (counts[write] ?? 0) + 1;
  return counts;
}

function ofWrite<W extends Write>(acknowledged: Acknowledged[], write: W) {
  return acknowledged.filter((entry): entry is Extract<Acknowledged, { write: W }> => entry.write === write);
}

function unfinishedJobs(inspect: Database) {
  return anyTables(inspect)
    .selectFrom('jobs')
    .select(['kind', 'state', 'attempts', 'run_at', 'last_error'])
    .where('state', 'in', ['queued', 'running'])
    .execute();
}

/** Waits until every job has run to its end, and none has failed. */
export async function settleJobs(inspect: Database, timeoutMs = 90_000): Promise<void> {
  await waitFor(
    'every job to finish',
    async () => (await unfinishedJobs(inspect)).length === 0,
    timeoutMs,
    250,
  ).catch(async (error: Error) => {
    const left = await unfinishedJobs(inspect);
    const now = Date.now();
    const shown = left.slice(0, 10).map((job) => ({ ...job, run_at: job.run_at - now }));
    throw new Error(`${error.message}; ${left.length} left, such as ${JSON.stringify(shown)}`);
  });
  const failed = await anyTables(inspect)
    .selectFrom('jobs')
    .select(['kind', 'last_error'])
    .where('state', '=', 'failed')
    .execute();
  expect(failed).toEqual([]);
}

const FINAL_VERSION_STATES = ['draft', 'published'];

/**
 * Reads every acknowledged write back through the API, and checks that the background work each
 * started has ended: versions generated (none left queued or processing, acknowledged or not),
 * forms enriched into their person. Call it once the jobs have settled.
 */
export async function expectReadBack(url: string, site: Site, acknowledged: Acknowledged[]): Promise<void> {
  await forEachConcurrently(ofWrite(acknowledged, 'person'), async ({ personId }) => {
    await succeed(url, 'GET', `/v0/persons/${personId}`);
  });
  await forEachConcurrently(ofWrite(acknowledged, 'page'), async ({ pageId }) => {
    await succeed(url, 'GET', `/v0/pages/${pageId}`);
  });
  const audiences = new Map(
    (await listAll(url, `/v0/pages/${site.pageId}/audiences`)).map((audience) => [
      audience.audienceId,
      audience,
    ]),
  );
  for (const { audienceId } of ofWrite(acknowledged, 'audience'))
    expect(audiences.has(audienceId)).toBe(true);
  // An audience's status is its latest version's state.
  const unfinished = [...audiences.values()].filter(
    (audience) => !FINAL_VERSION_STATES.includes(audience.status),
  );
  expect(unfinished.map((audience) => [audience.audienceId, audience.status])).toEqual([]);
  const analytics = await succeed(url, 'GET', `/v0/pages/${site.pageId}/analytics/audiences`);
  const sessions = analytics.items.find((item: any) => item.audienceId === site.audienceId).totalSessions;
  expect(sessions).toBeGreaterThanOrEqual(ofWrite(acknowledged, 'session').length);
  await forEachConcurrently(ofWrite(acknowledged, 'form'), async ({ email }) => {
    const found = await succeed(url, 'GET', `/v0/persons?email=${encodeURIComponent(email)}`);
    expect(found.items, `the person of form submission by ${email}`).toHaveLength(1);
  });
}

export interface ReceivedEvent {
  id: string;
  type: string;
  data: any;
}

/**
 * Every event the subscription was to deliver reached the receiver (more than once is allowed, never
 * not at all): each delivery succeeded and its event was received, and each acknowledged audience
 * and form has its events among them, matched by their data.
 */
export async function expectEveryEventDelivered(
  url: string,
  subscriptionId: string,
  received: ReceivedEvent[],
  acknowledged: Acknowledged[],
): Promise<number> {
  const ids = new Set(received.map((event) => event.id));
  const deliveries = await listAll(url, `/v0/webhook_subscriptions/${subscriptionId}/deliveries`);
  const undelivered = deliveries.filter(
    (delivery) => delivery.state !== 'succeeded' || !ids.has(delivery.eventId),
  );
  expect(undelivered).toEqual([]);
  const about = (type: string, field: string, id: string) =>
    received.some((event) => event.type === type && event.data[field] === id);
  for (const { audienceId } of ofWrite(acknowledged, 'audience')) {
    expect(about('page.version.created', 'audienceId', audienceId), audienceId).toBe(true);
    expect(about('page.version.processed', 'audienceId', audienceId), audienceId).toBe(true);
  }
  for (const { formSubmissionId: id } of ofWrite(acknowledged, 'form')) {
    expect(about('form.submitted', 'formSubmissionId', id), id).toBe(true);
    const enrichment =
      about('form.enriched', 'formSubmissionId', id) ||
      about('form.enrichment_failed', 'formSubmissionId', id);
    expect(enrichment, id).toBe(true);
  }
  return deliveries.length;
}

export interface Lease {
  id: string;
  kind: string;
  lockedBy: string;
}

/** The jobs leased right now; just after a node died, the ones it was running. */
export async function leasedJobs(inspect: Database): Promise<Lease[]> {
  const rows = await anyTables(inspect)
    .selectFrom('jobs')
    .select(['id', 'kind', 'locked_by'])
    .where('state', '=', 'running')
    .execute();
  return rows.map((row) => ({ id: row.id, kind: row.kind, lockedBy: row.locked_by ?? '' }));
}

/** Waits (up to `timeoutMs`) until a version is being generated; false when none was in that time. */
export async function untilGenerating(inspect: Database, timeoutMs: number): Promise<boolean> {
  return waitFor(
    'a generation to be running',
    async () => (await leasedJobs(inspect)).some((lease) => lease.kind === GENERATE_JOB),
    timeoutMs,
    5,
  ).catch(() => false);
}

/**
 * Waits until each of `leases` (left by a node that died) is running again under another worker,
 * or done; answers for each how long after `since` that was.
 */
export async function takenOver(
  inspect: Database,
  leases: Lease[],
  since: number,
  timeoutMs: number,
): Promise<number[]> {
  return Promise.all(
    leases.map((lease) =>
      waitFor(
        `job ${lease.id} (${lease.kind}) to run again`,
        async () => {
          const row = await anyTables(inspect)
            .selectFrom('jobs')
            .select(['state', 'locked_by'])
            .where('id', '=', lease.id)
            .executeTakeFirstOrThrow();
          return (row.state !== 'running' || row.locked_by !== lease.lockedBy) && Date.now() - since;
        },
        timeoutMs,
        50,
      ),
    ),
  );
}
