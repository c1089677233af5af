import path from 'node:path';

/** Everything Tailor reads from its environment, validated once at start. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Absolute base of links the service hands out (download URLs, public pages). */
  publicUrl: string;
  secret: string | undefined;
  bootstrapApiKey: string | undefined;
  rateLimitRps: number;
  redisUrl: string | undefined;
  /** Background job runners in this process; 0 leaves background work to other nodes. */
  workers: number;
  llmBaseUrl: string | undefined;
  llmApiKey: string | undefined;
  llmModel: string;
  webhookAllowPrivate: boolean;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (['true', '1'].includes(raw)) return true;
  if (['false', '0'].includes(raw)) return false;
  throw new ConfigError(name, `must be true, false, 1 or 0 (got "${raw}")`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
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

function minLength(env: Env, name: string, length: number): string | undefined {
  const raw = read(env, name);
  if (raw !== undefined && raw.length < length) {
    throw new ConfigError(name, `must be at least ${length} characters long`);
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

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
  return {
    host,
    port,
    dataDir: path.resolve(read(env, 'TAILOR_DATA_DIR') ?? 'data'),
    databaseUrl,
    publicUrl: (url(env, 'TAILOR_PUBLIC_URL', ['http:', 'https:']) ?? `http://${publicHost}:${port}`).replace(
      /\/+$/,
      '',
    ),
    secret,
    bootstrapApiKey: minLength(env, 'TAILOR_BOOTSTRAP_API_KEY', 32),
    rateLimitRps: integer(env, 'TAILOR_RATE_LIMIT_RPS', 100, 0, 1_000_000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    workers: integer(env, 'TAILOR_WORKERS', 1, 0, 64),
    llmBaseUrl: url(env, 'TAILOR_LLM_BASE_URL', ['http:', 'https:']),
    llmApiKey: read(env, 'TAILOR_LLM_API_KEY'),
    llmModel: read(env, 'TAILOR_LLM_MODEL') ?? 'gpt-4o-mini',
    webhookAllowPrivate: boolean(env, 'TAILOR_WEBHOOK_ALLOW_PRIVATE', false),
    logLevel,
  };
}
