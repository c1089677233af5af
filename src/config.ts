import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { DEFAULT_DATABASE_TIMEOUT_MS, DEFAULT_POOL_SIZE } from './db/connection.ts';
import { templateProblem } from './shared/pages-origin.ts';

/** Everything Tailor reads from its environment, validated once at start. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** How long any wait on the database may last before it answers 503 `unavailable`. */
  databaseTimeoutMs: number;
  /** PostgreSQL connections each process keeps for statements (LISTEN connections apart). */
  poolSize: number;
  /** Absolute base of the links the API hands out (download URLs, its own address). */
  publicUrl: string;
  /** The port of the pages origin's listener (public pages and /v0/public/*). */
  pagesPort: number;
  /** Where visitors reach the pages origin; may hold `{tenant}` (src/shared/pages-origin.ts). */
  pagesUrl: string;
  secret: string | undefined;
  bootstrapApiKey: string | undefined;
  rateLimitRps: number;
  publicRateLimitRps: number;
  /** New sessions per audience, and form submissions, one client address may make in an hour. */
  publicVisitorsPerHour: number;
  /** Form submissions older than this many days are purged. */
  formRetentionDays: number;
  /** Failed authentications per second per client IP, with a burst of four times that. */
  authFailureRps: number;
  /** Addresses and CIDR ranges of the reverse proxies whose X-Forwarded-For is believed. */
  trustProxy: string[];
  redisUrl: string | undefined;
  /** Background job runners in this process; 0 leaves background work to other nodes. */
  workers: number;
  /** How often a worker looks for work that nothing woke it for (retries coming due, expired leases). */
  workerPollMs: number;
  llmBaseUrl: string | undefined;
  llmApiKey: string | undefined;
  llmModel: string;
  /** How long a language model may take to answer before the attempt fails (and is tried again later). */
  llmTimeoutMs: number;
  webhookAllowPrivate: boolean;
  /** Waits before each retry of a failed webhook delivery. */
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  logLevel: string;
  /** Bearer token that GET /metrics requires; unset, /metrics answers loopback clients only. */
  metricsToken: string | undefined;
  /** Files go to this S3-compatible bucket when set, else to the data dir. */
  s3: S3Config | undefined;
}

export interface S3Config {
  bucket: string;
  prefix: string;
  region: string;
  endpoint: string | undefined;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

/**
 * Every environment variable Tailor reads. The readers below take only these names, so a variable
 * cannot be read without being listed here (docs/configuration.md is tested against this list).
 */
export const CONFIG_VARIABLES = [
  'HOST',
  'PORT',
  'LOG_LEVEL',
  'DATABASE_URL',
  'TAILOR_DB_TIMEOUT_MS',
  'TAILOR_DB_POOL_SIZE',
  'TAILOR_DATA_DIR',
  'TAILOR_SECRET',
  'TAILOR_BOOTSTRAP_API_KEY',
  'TAILOR_PUBLIC_URL',
  'TAILOR_PAGES_PORT',
  'TAILOR_PAGES_URL',
  'TAILOR_RATE_LIMIT_RPS',
  'TAILOR_PUBLIC_RATE_LIMIT_RPS',
  'TAILOR_PUBLIC_VISITORS_PER_HOUR',
  'TAILOR_FORM_RETENTION_DAYS',
  'TAILOR_AUTH_FAILURE_RPS',
  'TAILOR_TRUST_PROXY',
  'REDIS_URL',
  'TAILOR_WORKERS',
  'TAILOR_WORKER_POLL_MS',
  'TAILOR_LLM_BASE_URL',
  'TAILOR_LLM_API_KEY',
  'TAILOR_LLM_MODEL',
  'TAILOR_LLM_TIMEOUT_MS',
  'TAILOR_WEBHOOK_ALLOW_PRIVATE',
  'TAILOR_WEBHOOK_RETRY_SCHEDULE',
  'TAILOR_WEBHOOK_TIMEOUT_MS',
  'TAILOR_METRICS_TOKEN',
  'TAILOR_S3_BUCKET',
  'TAILOR_S3_PREFIX',
  'TAILOR_S3_REGION',
  'TAILOR_S3_ENDPOINT',
  'TAILOR_S3_ACCESS_KEY_ID',
  'TAILOR_S3_SECRET_ACCESS_KEY',
  'TAILOR_S3_FORCE_PATH_STYLE',
  'TAILOR_URL',
  'TAILOR_API_KEY',
] as const;

type Variable = (typeof CONFIG_VARIABLES)[number];

type Env = Record<string, string | undefined>;

function read(env: Env, name: Variable): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: Variable, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function boolean(env: Env, name: Variable, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (['true', '1'].includes(raw)) return true;
  if (['false', '0'].includes(raw)) return false;
  throw new ConfigError(name, `must be true, false, 1 or 0 (got "${raw}")`);
}

function url(env: Env, name: Variable, protocols: string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL (got "${raw}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must be a ${protocols.join(' or ')} URL (got "${parsed.protocol}")`);
  }
  return raw;
}

function pagesTemplate(env: Env, fallback: string): string {
  const raw = read(env, 'TAILOR_PAGES_URL');
  if (raw === undefined) return fallback;
  const problem = templateProblem(raw);
  if (problem) throw new ConfigError('TAILOR_PAGES_URL', problem);
  return raw.replace(/\/+$/, '');
}

function minLength(env: Env, name: Variable, length: number): string | undefined {
  const raw = read(env, name);
  if (raw !== undefined && raw.length < length) {
    throw new ConfigError(name, `must be at least ${length} characters long`);
  }
  return raw;
}

/** An IP address, or a CIDR range of at least one bit (proxy-addr refuses /0). */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const bits = ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : ipaddr.IPv6.isValid(address) ? 128 : 0;
  if (bits === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) >= 1 && Number(prefix) <= bits);
}

function addressRanges(env: Env, name: Variable): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim());
  const invalid = entries.find((entry) => !isAddressOrRange(entry));
  if (invalid !== undefined) {
    throw new ConfigError(
      name,
      `must be a comma-separated list of IP addresses or CIDR ranges such as 10.0.0.0/8,::1 (got "${invalid}")`,
    );
  }
  return entries;
}

const DURATION = /^(\d+)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** How long a receiver may take to answer a delivery. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
/** Real visitors one client address (a company's NAT) may stand for in an hour; see src/public/limits.ts. */
export const DEFAULT_VISITORS_PER_HOUR = 30;
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

function durations(env: Env, name: Variable, fallback: string): number[] {
  const raw = read(env, name) ?? fallback;
  const parts = raw.split(',').map((part) => part.trim().match(DURATION));
  if (parts.some((part) => !part)) {
    throw new ConfigError(
      name,
      `must be a comma-separated list of durations such as 5s,5m,2h (got "${raw}")`,
    );
  }
  return parts.map((part) => Number(part?.[1]) * (UNIT_MS[part?.[2] ?? 'ms'] ?? 1));
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function s3(env: Env): S3Config | undefined {
  const bucket = read(env, 'TAILOR_S3_BUCKET');
  if (!bucket) return undefined;
  const accessKeyId = read(env, 'TAILOR_S3_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'TAILOR_S3_SECRET_ACCESS_KEY');
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError('TAILOR_S3_SECRET_ACCESS_KEY', 'and TAILOR_S3_ACCESS_KEY_ID must be set together');
  }
  return {
    bucket,
    prefix: read(env, 'TAILOR_S3_PREFIX') ?? '',
    region: read(env, 'TAILOR_S3_REGION') ?? 'us-east-1',
    endpoint: url(env, 'TAILOR_S3_ENDPOINT', ['http:', 'https:']),
    accessKeyId,
    secretAccessKey,
    forcePathStyle: boolean(env, 'TAILOR_S3_FORCE_PATH_STYLE', false),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const secret = minLength(env, 'TAILOR_SECRET', 32);
  if (databaseUrl && !secret) {
    throw new ConfigError(
      'TAILOR_SECRET',
      'is required with a PostgreSQL DATABASE_URL (at least 32 characters)',
    );
  }
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const pagesPort = integer(env, 'TAILOR_PAGES_PORT', 8081, 0, 65535);
  if (pagesPort !== 0 && pagesPort === port) {
    throw new ConfigError('TAILOR_PAGES_PORT', `must differ from PORT (both are ${port})`);
  }
  return {
    host,
    port,
    dataDir: path.resolve(read(env, 'TAILOR_DATA_DIR') ?? 'data'),
    databaseUrl,
    databaseTimeoutMs: integer(env, 'TAILOR_DB_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUT_MS, 1, 600_000),
    poolSize: integer(env, 'TAILOR_DB_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1_000),
    publicUrl: (url(env, 'TAILOR_PUBLIC_URL', ['http:', 'https:']) ?? `http://${publicHost}:${port}`).replace(
      /\/+$/,
      '',
    ),
    pagesPort,
    pagesUrl: pagesTemplate(env, `http://${publicHost}:${pagesPort}`),
    secret,
    bootstrapApiKey: minLength(env, 'TAILOR_BOOTSTRAP_API_KEY', 32),
    rateLimitRps: integer(env, 'TAILOR_RATE_LIMIT_RPS', 100, 0, 1_000_000),
    publicRateLimitRps: integer(env, 'TAILOR_PUBLIC_RATE_LIMIT_RPS', 20, 0, 1_000_000),
    publicVisitorsPerHour: integer(
      env,
      'TAILOR_PUBLIC_VISITORS_PER_HOUR',
      DEFAULT_VISITORS_PER_HOUR,
      0,
      1_000_000,
    ),
    formRetentionDays: integer(env, 'TAILOR_FORM_RETENTION_DAYS', 730, 1, 36_500),
    authFailureRps: integer(env, 'TAILOR_AUTH_FAILURE_RPS', 5, 0, 1_000_000),
    trustProxy: addressRanges(env, 'TAILOR_TRUST_PROXY'),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    workers: integer(env, 'TAILOR_WORKERS', 1, 0, 64),
    workerPollMs: integer(env, 'TAILOR_WORKER_POLL_MS', 1_000, 10, 600_000),
    llmBaseUrl: url(env, 'TAILOR_LLM_BASE_URL', ['http:', 'https:']),
    llmApiKey: read(env, 'TAILOR_LLM_API_KEY'),
    llmModel: read(env, 'TAILOR_LLM_MODEL') ?? 'gpt-4o-mini',
    llmTimeoutMs: integer(env, 'TAILOR_LLM_TIMEOUT_MS', 60_000, 1, 600_000),
    webhookAllowPrivate: boolean(env, 'TAILOR_WEBHOOK_ALLOW_PRIVATE', false),
    webhookRetryScheduleMs: durations(env, 'TAILOR_WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRY_SCHEDULE),
    webhookTimeoutMs: integer(env, 'TAILOR_WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_TIMEOUT_MS, 1, 600_000),
    logLevel,
    metricsToken: minLength(env, 'TAILOR_METRICS_TOKEN', 16),
    s3: s3(env),
  };
}

/** Where `tailor mcp` finds the API, and the key it calls it with (docs/agents.md). */
export interface ClientConfig {
  /** The server's address, without `/v0`. */
  url: string;
  apiKey: string;
}

/** Where `npm start` listens: an agent on the same machine needs no TAILOR_URL. */
const DEFAULT_CLIENT_URL = 'http://127.0.0.1:8080';

/** The configuration of `tailor mcp`, a client of the API: not of the server, which reads none of it. */
export function loadClientConfig(env: Env = process.env): ClientConfig {
  const apiKey = read(env, 'TAILOR_API_KEY');
  if (!apiKey) throw new ConfigError('TAILOR_API_KEY', 'is required: an API key of `tailor keys create`');
  return { url: url(env, 'TAILOR_URL', ['http:', 'https:']) ?? DEFAULT_CLIENT_URL, apiKey };
}
