import { parseArgs } from 'node:util';
import { ConfigError, loadClientConfig, loadConfig } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { AppError } from '../shared/errors.ts';

// Each command loads what it runs, when it runs: `tailor mcp`, a client of the API, starts without
// loading the server (an agent's host waits for it), and the server's commands without the MCP SDK.

const USAGE = `Usage: tailor <command>

  serve                                   serve the API and run background work (the default command)
  worker                                  run background work only (generation, webhooks, purges)
  migrate                                 bring the database schema up to date
  tenants create --name N [--slug S]      create a tenant and its first API key
  keys create --tenant T [--read-only]    issue an API key (T: tenant id or slug)
  keys list --tenant T                    list a tenant's keys (never the keys themselves)
  keys revoke KEY_ID                      revoke a key; effective on the next request
  demo                                    fill tenant "default" with a sample and print pages to open
  openapi                                 print the OpenAPI document (as served at /v0/openapi.json)
  mcp                                     an MCP server on stdio for AI agents: a client of the API at
                                          TAILOR_URL with the key TAILOR_API_KEY (docs/agents.md)

Configuration comes from the environment; see docs/configuration.md.`;

type Options = { name?: string; slug?: string; tenant?: string; 'read-only'?: boolean; help?: boolean };

function required(value: string | undefined, what: string): string {
  if (!value) throw new AppError('validation_failed', `${what} is required\n\n${USAGE}`);
  return value;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs a command that needs the database (migrated) and closes it afterwards. */
async function withDatabase(
  work: (database: Database, applied: string[]) => Promise<unknown>,
): Promise<void> {
  const config = loadConfig();
  const [{ migrateDatabase }, { openDatabase }] = await Promise.all([
    import('../db/migrate.ts'),
    import('../db/connection.ts'),
  ]);
  const applied = (await migrateDatabase(config)).map((result) => result.migrationName);
  const database = openDatabase(config);
  try {
    const result = await work(database, applied);
    if (result !== undefined) print(result);
  } finally {
    await database.close();
  }
}

/** The tenant that --tenant names, by id or slug. */
async function namedTenant(database: Database, tenant: string | undefined) {
  const { getTenant } = await import('../resources/tenants/service.ts');
  return getTenant(database.acrossTenants(), required(tenant, '--tenant'));
}

async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      tenant: { type: 'string' },
      'read-only': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const options = values as Options;
  const [command = 'serve', action, target] = positionals;
  if (options.help || command === 'help') return void process.stdout.write(`${USAGE}\n`);
  const key = `${command}${action ? ` ${action}` : ''}`;
  switch (key) {
    case 'serve':
      return (await import('../server.ts')).serve(loadConfig());
    case 'worker':
      return (await import('../server.ts')).work(loadConfig());
    case 'migrate':
      return withDatabase(async (_database, applied) => ({ applied }));
    case 'tenants create': {
      const { createTenantWithKey } = await import('../workflows/tenant-setup/service.ts');
      return withDatabase((database) =>
        createTenantWithKey(database, { name: required(options.name, '--name'), slug: options.slug }),
      );
    }
    case 'keys create':
      return withDatabase(async (database) => {
        const { issueKey } = await import('../resources/api-keys/service.ts');
        const { tenantId } = await namedTenant(database, options.tenant);
        return issueKey(database.acrossTenants(), tenantId, { readOnly: options['read-only'] === true });
      });
    case 'keys list':
      return withDatabase(async (database) => {
        const { listKeys } = await import('../resources/api-keys/service.ts');
        return listKeys(database.acrossTenants(), (await namedTenant(database, options.tenant)).tenantId);
      });
    case 'keys revoke': {
      const { revoke } = await import('../resources/api-keys/service.ts');
      return withDatabase((database) => revoke(database.acrossTenants(), required(target, 'KEY_ID')));
    }
    case 'demo':
      return (await import('./demo.ts')).demo(loadConfig());
    case 'openapi':
      return print(await (await import('./openapi.ts')).openApiDocument());
    case 'mcp':
      return (await import('./mcp.ts')).mcp(loadClientConfig());
    default:
      throw new AppError('validation_failed', `Unknown command "${key}"\n\n${USAGE}`);
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  const usageError = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  if (error instanceof ConfigError || error instanceof AppError || usageError) {
    process.stderr.write(`tailor: ${(error as Error).message}\n`);
    process.exit(error instanceof ConfigError ? 78 : 1);
  }
  throw error;
}
