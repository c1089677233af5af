import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database, PoolUse } from '../db/connection.ts';
import { queueBacklog } from '../jobs/backlog.ts';
import { AppError } from '../shared/errors.ts';

/** One value of a gauge, for one set of labels. */
export interface GaugeValue<Label extends string = string> {
  labels: Record<Label, string>;
  value: number;
}

/**
 * A gauge read from the database at each scrape, so that it is right across every node and every
 * `tailor worker` process, whichever of them did the work.
 */
export interface DatabaseGauge<Label extends string = string> {
  name: string;
  help: string;
  labelNames: readonly Label[];
  read(database: Database, now: number): Promise<GaugeValue<Label>[]>;
}

/** `read`, made once per scrape (its `now`) however many gauges ask for it. */
function oncePerScrape<T>(read: (database: Database) => Promise<T>) {
  let last: { database: Database; now: number; reading: Promise<T> } | undefined;
  return (database: Database, now: number): Promise<T> => {
    if (last?.database !== database || last.now !== now) last = { database, now, reading: read(database) };
    return last.reading;
  };
}

const queuedJobs = oncePerScrape((database) => queueBacklog(database));

const jobsQueued: DatabaseGauge<'kind'> = {
  name: 'tailor_jobs_queued',
  help: 'Background jobs waiting to run, due now or later (a retry waits for its time), by kind',
  labelNames: ['kind'],
  async read(database, now) {
    const rows = await queuedJobs(database, now);
    return rows.map((row) => ({ labels: { kind: row.kind }, value: row.queued }));
  },
};

const oldestQueuedJob: DatabaseGauge<'kind'> = {
  name: 'tailor_jobs_oldest_queued_age_seconds',
  help: 'Seconds since the queued job that has waited longest came due (0 when none is due yet), by kind',
  labelNames: ['kind'],
  async read(database, now) {
    const rows = await queuedJobs(database, now);
    return rows.map((row) => ({
      labels: { kind: row.kind },
      value: Math.max(0, now - row.earliestRunAt) / 1000,
    }));
  },
};

/** Route label of requests that matched no route: one value, however many URLs there are. */
const UNMATCHED_ROUTE = 'unmatched';

type RequestLabels = Record<'method' | 'route' | 'status_class', string>;

/** One kind of answer (method, route, status class): its labels, made once, and its answers not yet counted. */
interface Answers {
  labels: RequestLabels;
  uncounted: number;
}

/**
 * The service's metrics, in a registry of their own (not prom-client's global one), so that several
 * servers in one process keep separate counts. Database gauges are read when scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Session events accepted by POST /v0/public/events. */
  readonly eventsIngested: Counter;
  /** Form submissions accepted by POST /v0/public/forms. */
  readonly formsIngested: Counter;
  private readonly requestDuration: Histogram<'method' | 'route' | 'status_class'>;
  private readonly databaseUp: Gauge;
  private readonly databaseGauges: { definition: DatabaseGauge; gauge: Gauge }[];
  /** By route, then method, then status class (1–5): as few as the label sets themselves. */
  private readonly answers = new Map<string, Map<string, Answers[]>>();
  private rendering: Promise<string> | undefined;

  constructor(
    private readonly database: Database,
    databaseGauges: DatabaseGauge[],
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const labelNames = ['method', 'route', 'status_class'] as const;
    const { answers } = this;
    new Counter({
      name: 'tailor_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status class',
      labelNames,
      registers,
      // Counted per request by `observe` and added here when scraped: prom-client's `inc` builds and
      // checks the labels' key on every call.
      collect() {
        for (const byMethod of answers.values()) {
          for (const byClass of byMethod.values()) {
            for (const kind of byClass) {
              if (!kind?.uncounted) continue;
              this.inc(kind.labels, kind.uncounted);
              kind.uncounted = 0;
            }
          }
        }
      },
    });
    this.requestDuration = new Histogram({
      name: 'tailor_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by method, route pattern and status class',
      labelNames,
      registers,
    });
    this.eventsIngested = new Counter({
      name: 'tailor_public_events_ingested_total',
      help: 'Session events accepted from public pages (POST /v0/public/events)',
      registers,
    });
    this.formsIngested = new Counter({
      name: 'tailor_public_forms_ingested_total',
      help: 'Form submissions accepted from public pages (POST /v0/public/forms)',
      registers,
    });
    this.databaseUp = new Gauge({
      name: 'tailor_database_up',
      help: 'Whether the database answered the reads of this scrape (1) or not (0: its gauges are left out)',
      registers,
    });
    this.databaseGauges = [jobsQueued, oldestQueuedJob, ...databaseGauges].map((definition) => ({
      definition,
      gauge: new Gauge({
        name: definition.name,
        help: definition.help,
        labelNames: definition.labelNames,
        registers,
      }),
    }));
    this.registerPoolGauges();
  }

  /** PostgreSQL's pool, read from the pool when scraped; SQLite has one connection and no pool. */
  private registerPoolGauges(): void {
    if (!this.database.poolUse()) return;
    const poolGauges: [string, string, keyof PoolUse][] = [
      ['tailor_database_pool_connections', 'Connections open in the pool, in use or idle', 'open'],
      ['tailor_database_pool_idle_connections', 'Open connections in the pool not in use', 'idle'],
      [
        'tailor_database_pool_waiting',
        'Statements waiting for a connection, every one being in use',
        'waiting',
      ],
    ];
    const { database } = this;
    for (const [name, help, field] of poolGauges) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(database.poolUse()?.[field] ?? 0);
        },
      });
    }
  }

  /** Counts an answered request under its route's pattern, never its URL, so label values stay few. */
  observe(request: FastifyRequest, reply: FastifyReply): void {
    const kind = this.answersOf(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
    );
    kind.uncounted += 1;
    this.requestDuration.observe(kind.labels, reply.elapsedTime / 1000);
  }

  private answersOf(method: string, route: string, statusCode: number): Answers {
    let byMethod = this.answers.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.answers.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (!byClass) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const statusClass = Math.floor(statusCode / 100);
    let kind = byClass[statusClass];
    if (!kind) {
      kind = { labels: { method, route, status_class: `${statusClass}xx` }, uncounted: 0 };
      byClass[statusClass] = kind;
    }
    return kind;
  }

  /** The metrics in the Prometheus text format; scrapes at the same time share one reading. */
  scrape(): Promise<string> {
    this.rendering ??= this.render().finally(() => {
      this.rendering = undefined;
    });
    return this.rendering;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private async render(): Promise<string> {
    await this.readDatabase();
    return this.registry.metrics();
  }

  private async readDatabase(): Promise<void> {
    const now = Date.now();
    const readings = await Promise.allSettled(
      this.databaseGauges.map(({ definition }) => definition.read(this.database, now)),
    );
    this.databaseUp.set(readings.every((reading) => reading.status === 'fulfilled') ? 1 : 0);
    readings.forEach((reading, index) => {
      const { gauge } = this.databaseGauges[index] as { gauge: Gauge };
      gauge.reset();
      if (reading.status === 'rejected') return;
      for (const { labels, value } of reading.value) gauge.set(labels, value);
    });
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares digests, so that the time taken tells nothing of the token, not even its length. */
function isToken(given: string, token: string): boolean {
  return timingSafeEqual(sha256(given), sha256(token));
}

function isLoopback(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  return v4.startsWith('127.') || ip === '::1';
}

const BEARER = /^Bearer +(\S+)$/i;

/**
 * With a token, a scrape must carry it as `Authorization: Bearer …` (401 otherwise). Without one,
 * only this machine may scrape (403 to others): metrics tell how the service is used.
 */
function allowScrape(request: FastifyRequest, reply: FastifyReply, token: string | undefined): void {
  if (token === undefined) {
    if (!isLoopback(request.ip)) {
      throw new AppError(
        'forbidden',
        'Metrics answer only to this machine unless TAILOR_METRICS_TOKEN is set',
      );
    }
    return;
  }
  const given = BEARER.exec(request.headers.authorization ?? '')?.[1];
  if (given === undefined || !isToken(given, token)) {
    reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
    throw new AppError('unauthorized', 'Send the metrics token as Authorization: Bearer <token>');
  }
}

export interface MetricsOptions {
  database: Database;
  /** TAILOR_METRICS_TOKEN. */
  token: string | undefined;
  /** Gauges of features, read from the database at each scrape (the server hands them in). */
  gauges: DatabaseGauge[];
}

/**
 * Counts every request `app` answers and serves GET /metrics (hidden from the OpenAPI document: it
 * is no part of the API; docs/configuration.md describes it). Call before routes are registered.
 */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions): void {
  const metrics = new Metrics(options.database, options.gauges);
  countRequests(app, metrics);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    allowScrape(request, reply, options.token);
    const text = await metrics.scrape();
    return reply.type(metrics.contentType).send(text);
  });
}

/** Counts every request `app` answers in `metrics` (another listener's, whose /metrics serves them). */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.decorate('metrics', metrics);
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request, reply);
    done();
  });
}
