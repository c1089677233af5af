import { sql } from 'kysely';
import type { Database } from '../../src/db/connection.ts';
import { ERROR_STATUS, type ErrorCode } from '../../src/shared/errors.ts';
import { anyTables } from '../helpers/any-tables.ts';
import type { SentRequest } from './requests.ts';
import { idsIn, type World } from './world.ts';

/** The server's answer to one request. */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body when it is declared JSON and parses; undefined otherwise. */
  json: unknown;
  location: string | null;
}

export async function send(baseUrl: string, request: SentRequest): Promise<Answer> {
  const response = await fetch(`${baseUrl}${request.url}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let json: unknown;
  if (contentType.includes('json')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, contentType, text, json, location: response.headers.get('location') };
}

const isClientError = (status: number) => status >= 400 && status <= 499;
const isSuccess = (status: number) => status >= 200 && status <= 299;

function problemViolations(answer: Answer): string[] {
  if (!answer.contentType.startsWith('application/problem+json')) {
    return [`a ${answer.status} is application/problem+json, not "${answer.contentType}"`];
  }
  const problem = answer.json as { code?: unknown; status?: unknown } | undefined;
  const code = problem?.code;
  if (typeof code !== 'string' || !(code in ERROR_STATUS)) {
    return [`the problem's code ${JSON.stringify(code)} is a decided code`];
  }
  const violations: string[] = [];
  const decided = ERROR_STATUS[code as ErrorCode];
  if (decided !== answer.status) violations.push(`code ${code} goes with status ${decided}`);
  if (problem?.status !== answer.status) violations.push(`the problem's status equals the HTTP status`);
  return violations;
}

/**
 * Properties 1 and 2: never a 5xx; a 4xx is a problem with a decided code; a JSON success is JSON.
 * And a request whose credentials do not allow it never succeeds (decisions §3).
 */
export function contractViolations(request: SentRequest, answer: Answer): string[] {
  const { operation, credentials } = request.planned;
  if (answer.status >= 500) return ['never a 5xx'];
  if (isClientError(answer.status)) return problemViolations(answer);
  if (isSuccess(answer.status)) {
    // A CORS preflight carries no credentials: browsers never send them on one.
    const allowed =
      operation.isPublic ||
      request.method === 'OPTIONS' ||
      credentials === 'key' ||
      (credentials === 'read-only' && request.method === 'GET');
    if (!allowed) return [`a request with credentials "${credentials}" does not succeed`];
    const json = answer.contentType.startsWith('application/json') && answer.json !== undefined;
    const asDocumented = request.method === operation.method;
    return asDocumented && operation.answersJson && !json ? ['a success of a JSON endpoint is JSON'] : [];
  }
  return operation.statuses.includes(String(answer.status))
    ? []
    : [`${answer.status} is a documented status`];
}

/**
 * Property 4 during the run: a request of one tenant never sees the other's data. A path naming
 * the other tenant's id is not found (not a success, nor a state of that resource); no answer
 * carries an id of the other tenant that the request did not itself send.
 */
export function leakViolations(world: World, request: SentRequest, answer: Answer): string[] {
  const operation = request.planned.operation;
  if (operation.isPublic) return [];
  const caller = request.planned.caller;
  const foreign = (id: string) => world.ownerOf(id) === 1 - caller;
  const violations: string[] = [];
  // A CORS preflight asks about a path, not about what is there.
  const named = request.method === 'OPTIONS' ? [] : Object.values(request.path);
  const namedForeign = named.flatMap(idsIn).filter(foreign);
  const code = (answer.json as { code?: string } | undefined)?.code;
  if (namedForeign.length > 0 && (isSuccess(answer.status) || code === 'invalid_state')) {
    violations.push(`a path naming the other tenant's ${namedForeign.join(', ')} is not found`);
  }
  const sent = `${request.url} ${request.body?.toString('latin1') ?? ''}`;
  const leaked = [...new Set(idsIn(answer.text))].filter((id) => foreign(id) && !sent.includes(id));
  if (leaked.length > 0) violations.push(`the answer shows the other tenant's ${leaked.join(', ')}`);
  return violations;
}

interface TenantTable {
  name: string;
  /** Has an updated_at column, whose latest value shows a change that keeps the count. */
  updated: boolean;
}

/**
 * Per-tenant row counts of every table that has a tenant_id (and the latest updated_at where there
 * is one), for the two tenants, in one query: what a refused write must leave as it was.
 */
export class TableCounts {
  private constructor(
    private readonly database: Database,
    private readonly tables: TenantTable[],
    private readonly tenantIds: string[],
  ) {}

  static async of(database: Database, tenantIds: string[], onPostgres: boolean): Promise<TableCounts> {
    const columns = onPostgres
      ? sql<{ table_name: string; column_name: string }>`SELECT table_name, column_name
          FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name IN ('tenant_id', 'updated_at')`
      : sql<{ table_name: string; column_name: string }>`SELECT m.name AS table_name, p.name AS column_name
          FROM sqlite_master m JOIN pragma_table_info(m.name) p
          WHERE m.type = 'table' AND p.name IN ('tenant_id', 'updated_at')`;
    const rows = (await columns.execute(anyTables(database))).rows;
    const tables = [
      ...new Set(rows.filter((row) => row.column_name === 'tenant_id').map((row) => row.table_name)),
    ]
      .sort()
      .map((name) => ({
        name,
        updated: rows.some((row) => row.table_name === name && row.column_name === 'updated_at'),
      }));
    return new TableCounts(database, tables, tenantIds);
  }

  get tableNames(): string[] {
    return this.tables.map((table) => table.name);
  }

  /** `table tenant` → `count latest-updated_at`. */
  async snapshot(): Promise<Map<string, string>> {
    const tenants = sql.join(this.tenantIds.map((id) => sql`${id}`));
    const counts = this.tables.map(
      (table) => sql`SELECT ${sql.lit(table.name)} AS name, tenant_id, count(*) AS n,
        ${table.updated ? sql`CAST(max(updated_at) AS TEXT)` : sql`NULL`} AS changed
        FROM ${sql.table(table.name)} WHERE tenant_id IN (${tenants}) GROUP BY tenant_id`,
    );
    const result = await sql<{
      name: string;
      tenant_id: string;
      n: number;
      changed: string | null;
    }>`${sql.join(counts, sql` UNION ALL `)}`.execute(anyTables(this.database));
    return new Map(
      result.rows.map((row) => [`${row.name} ${row.tenant_id}`, `${Number(row.n)} ${row.changed}`]),
    );
  }
}

/** Property 3: what changed between two snapshots, leaving out the tables in `ignored`. */
export function storedViolations(
  before: Map<string, string>,
  after: Map<string, string>,
  ignored: string[],
): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys]
    .filter((key) => !ignored.includes(key.split(' ')[0] ?? '') && before.get(key) !== after.get(key))
    .map((key) => `nothing is stored on a refusal: ${key} went from ${before.get(key)} to ${after.get(key)}`);
}

const SHOWN = 2000;

function shortened(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}… (${text.length} characters)` : text;
}

/** A failing exchange, as a person reads it. */
export function describeExchange(request: SentRequest, answer: Answer | Error, violations: string[]): string {
  const headers = { ...request.headers, ...(request.headers['x-api-key'] ? { 'x-api-key': '<key>' } : {}) };
  const body =
    request.body === undefined ? '(none)' : shortened(JSON.stringify(request.body.toString('utf8')));
  const answered =
    answer instanceof Error
      ? `→ no answer: ${answer.message} ${String(answer.cause ?? '')}`
      : `→ ${answer.status} ${answer.contentType}\n${shortened(answer.text)}`;
  return [
    `${request.method} ${shortened(request.url)}`,
    `as tenant ${request.planned.caller}, headers ${JSON.stringify(headers)}`,
    `body (${request.body?.length ?? 0} bytes): ${body}`,
    answered,
    ...violations.map((violation) => `violated: ${violation}`),
  ].join('\n');
}
