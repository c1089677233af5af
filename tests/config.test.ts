import { describe, expect, it } from 'vitest';
import { loadClientConfig, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: undefined,
      rateLimitRps: 100,
      workers: 1,
      webhookAllowPrivate: false,
      publicUrl: 'http://127.0.0.1:8080',
      pagesPort: 8081,
      pagesUrl: 'http://127.0.0.1:8081',
    });
    expect(config.dataDir).toMatch(/data$/);
    expect(config.trustProxy).toEqual([]);
    expect(config.databaseTimeoutMs).toBe(5_000);
    expect(config.poolSize).toBe(10);
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ PORT: '8080x' }, 'PORT must be an integer'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a postgres: or postgresql: URL'],
    [{ DATABASE_URL: 'postgres://localhost/db' }, 'TAILOR_SECRET is required'],
    [{ TAILOR_SECRET: 'short' }, 'TAILOR_SECRET must be at least 32 characters'],
    [{ TAILOR_BOOTSTRAP_API_KEY: 'short' }, 'TAILOR_BOOTSTRAP_API_KEY must be at least 32 characters'],
    [{ TAILOR_RATE_LIMIT_RPS: '-1' }, 'TAILOR_RATE_LIMIT_RPS must be an integer'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL must be a redis: or rediss: URL'],
    [{ TAILOR_WEBHOOK_ALLOW_PRIVATE: 'yes' }, 'TAILOR_WEBHOOK_ALLOW_PRIVATE must be true, false, 1 or 0'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ TAILOR_PUBLIC_URL: 'ftp://x' }, 'TAILOR_PUBLIC_URL must be a http: or https: URL'],
    [{ TAILOR_METRICS_TOKEN: 'short' }, 'TAILOR_METRICS_TOKEN must be at least 16 characters'],
    [{ TAILOR_PAGES_PORT: '8080' }, 'TAILOR_PAGES_PORT must differ from PORT (both are 8080)'],
    [{ TAILOR_PAGES_PORT: '70000' }, 'TAILOR_PAGES_PORT must be an integer from 0 to 65535'],
    [{ TAILOR_PAGES_URL: 'ftp://pages.example.com' }, 'TAILOR_PAGES_URL must be a http: or https: URL'],
    [{ TAILOR_PAGES_URL: 'pages' }, 'TAILOR_PAGES_URL must be a URL'],
    [{ TAILOR_PAGES_URL: 'https://pages.example.com/p' }, 'TAILOR_PAGES_URL must be an origin only'],
    [{ TAILOR_PAGES_URL: 'https://pages.example.com?x=1' }, 'TAILOR_PAGES_URL must be an origin only'],
    [
      { TAILOR_PAGES_URL: 'https://{tenant}.{tenant}.example.com' },
      'TAILOR_PAGES_URL may hold {tenant} once',
    ],
    [
      { TAILOR_PAGES_URL: 'https://pages.{tenant}.example.com' },
      'TAILOR_PAGES_URL may hold {tenant} only in the first label of its host',
    ],
    [{ TAILOR_DB_TIMEOUT_MS: '0' }, 'TAILOR_DB_TIMEOUT_MS must be an integer from 1 to 600000'],
    [{ TAILOR_DB_POOL_SIZE: '0' }, 'TAILOR_DB_POOL_SIZE must be an integer from 1 to 1000 (got "0")'],
    [{ TAILOR_DB_POOL_SIZE: 'ten' }, 'TAILOR_DB_POOL_SIZE must be an integer from 1 to 1000 (got "ten")'],
    [{ TAILOR_TRUST_PROXY: 'proxy.internal' }, 'TAILOR_TRUST_PROXY must be a comma-separated list'],
    [{ TAILOR_TRUST_PROXY: '10.0.0.0/8,10.0.0.0/33' }, '(got "10.0.0.0/33")'],
    [{ TAILOR_TRUST_PROXY: '0.0.0.0/0' }, '(got "0.0.0.0/0")'],
    [{ TAILOR_TRUST_PROXY: '127.1' }, '(got "127.1")'],
    [{ TAILOR_TRUST_PROXY: '10.0.0.1,' }, '(got "")'],
    [
      { TAILOR_S3_BUCKET: 'b', TAILOR_S3_ACCESS_KEY_ID: 'id' },
      'TAILOR_S3_SECRET_ACCESS_KEY and TAILOR_S3_ACCESS_KEY_ID must be set together',
    ],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9000',
      TAILOR_DATA_DIR: '/tmp/tailor-x',
      DATABASE_URL: 'postgres://db/tailor',
      TAILOR_SECRET: 's'.repeat(32),
      TAILOR_RATE_LIMIT_RPS: '0',
      TAILOR_WORKERS: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      TAILOR_PUBLIC_URL: 'https://tailor.example.com/',
      TAILOR_PAGES_PORT: '9001',
      TAILOR_PAGES_URL: 'https://{tenant}.pages.example.com/',
      TAILOR_METRICS_TOKEN: 'metrics-token-0123456789',
      TAILOR_S3_BUCKET: 'files',
      TAILOR_S3_PREFIX: 'tailor/',
      TAILOR_S3_ENDPOINT: 'http://127.0.0.1:9000',
      TAILOR_S3_FORCE_PATH_STYLE: 'true',
      TAILOR_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, fd00::/8',
      TAILOR_DB_TIMEOUT_MS: '1500',
      TAILOR_DB_POOL_SIZE: '40',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/tmp/tailor-x',
      rateLimitRps: 0,
      workers: 0,
      publicUrl: 'https://tailor.example.com',
      pagesPort: 9001,
      pagesUrl: 'https://{tenant}.pages.example.com',
      metricsToken: 'metrics-token-0123456789',
      trustProxy: ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8'],
      databaseTimeoutMs: 1500,
      poolSize: 40,
      s3: {
        bucket: 'files',
        prefix: 'tailor/',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9000',
        forcePathStyle: true,
      },
    });
  });

  it("reads tailor mcp's own two variables, and none of the server's", () => {
    expect(loadClientConfig({ TAILOR_API_KEY: 'tlr_key', PORT: '9090' })).toEqual({
      url: 'http://127.0.0.1:8080',
      apiKey: 'tlr_key',
    });
    expect(
      loadClientConfig({ TAILOR_API_KEY: 'tlr_key', TAILOR_URL: 'https://tailor.example.com' }).url,
    ).toBe('https://tailor.example.com');
    expect(() => loadClientConfig({})).toThrow('TAILOR_API_KEY is required');
    expect(() => loadClientConfig({ TAILOR_API_KEY: 'k', TAILOR_URL: 'ftp://x' })).toThrow(
      'TAILOR_URL must be a http: or https: URL',
    );
  });
});
