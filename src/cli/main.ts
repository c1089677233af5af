import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/connection.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { issueKey, listKeys, revoke } from '../resources/api-keys/service.ts';
import { getTenant } from '../resources/tenants/service.ts';
import { serve, work } from '../server.ts';
import { AppError } from '../shared/errors.ts';
import { createTenantWithKey } from '../workflows/tenant-setup/service.ts';
import { demo } from './demo.ts';
import { mcp } from './mcp.ts';
import { openApiDocument } from './openapi.ts';

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
  mcp [--url U]                           an MCP server on stdio for AI agents, a client of the API at U
                                          (default TAILOR_URL, else http://127.0.0.1:8080) with the key
                                          TAILOR_API_KEY; see docs/agents.md

Configuration comes from the environment; see docs/configuration.md.`;

type Options = {
  name?: string;
  slug?: string;
  tenant?: string;
  'read-only'?: boolean;
  url?: string;
  help?: boolean;
};

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
  const applied = (await migrateDatabase(config)).map((result) => result.migrationName);
  const database = openDatabase(config);
  try {
    const result = await work(database, applied);
    if (result !== undefined) print(result);
  } finally {
    await database.close();
  }
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
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const options = values as Options;
  const [command = 'serve', action, target] = positionals;
  if (options.help || command === 'help') return void process.stdout.write(`${USAGE}\n`);
  const key = `${command}${action ? ` ${action}` : ''}`;
  switch (key) {
    case 'serve':
      return serve(loadConfig());
    case 'worker':
      return work(loadConfig());
    case 'migrate':
      return withDatabase(async (_database, applied) => ({ applied }));
    case 'tenants create':
      return withDatabase((database) =>
        createTenantWithKey(database, { name: required(options.name, '--name'), slug: options.slug }),
      );
    case 'keys create':
      return withDatabase(async (database) => {
        const tenant = await getTenant(database.acrossTenants(), required(options.tenant, '--tenant'));
        return issueKey(database.acrossTenants(), tenant.tenantId, {
          readOnly: options['read-only'] === true,
        });
      });
    case 'keys list':
      return withDatabase(async (database) =>
        listKeys(
          database.acrossTenants(),
          (await getTenant(database.acrossTenants(), required(options.tenant, '--tenant'))).tenantId,
        ),
      );
    case 'keys revoke':
      return withDatabase((database) => revoke(database.acrossTenants(), required(target, 'KEY_ID')));
    case 'demo':
      return demo(loadConfig());
    case 'openapi':
      return print(await openApiDocument());
    case 'mcp':
      return mcp(options.url);
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
