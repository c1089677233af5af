import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyTables } from '../helpers/any-tables.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { onPostgres, startServer, type TestServer } from '../helpers/server.ts';
import {
  type Answer,
  contractViolations,
  describeExchange,
  leakViolations,
  send,
  storedViolations,
  TableCounts,
} from './checks.ts';
import { nameOf, type Operation, operationsOf } from './operations.ts';
import { materialize, type PlannedRequest, requestArbitrary } from './requests.ts';
import { seedWorld } from './seed.ts';
import { Known } from './values.ts';
import { idsIn, type TenantIndex, World } from './world.ts';

// Property-based fuzzing of every operation of the OpenAPI document (decisions §2 and §10): requests
// generated from each operation's schemas, valid and mutated, by two tenants over real ids of both.
// `npm run fuzz -- --runs N --seed S` runs this file alone with more requests or another seed.

const RUNS = Number(process.env.FUZZ_RUNS ?? 5000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
/** Generous: a request takes a few milliseconds, a refused write two table counts more. */
const TIMEOUT_MS = Math.max(300_000, RUNS * 60);
/** Each shrink of a failing request is a request more: enough to simplify one, not to wander. */
const MAX_SHRINKS = 200;
/** Contexts per tenant read back in the cross-tenant sweep. */
const SWEPT_CONTEXTS = 12;

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let server: TestServer;
let receiver: Receiver;
let world: World;
let operations: Operation[];
let counts: TableCounts;
const tally = new Map<string, Record<string, number>>();

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer();
  world = new World([await server.newTenant(), await server.newTenant()]);
  operations = operationsOf((await world.tenants[0].client.get('/v0/openapi.json')).body);
  await seedWorld(world, server.database, receiver.url);
  const tenantIds = world.tenants.map((tenant) => tenant.client.tenantId);
  counts = await TableCounts.of(server.database, tenantIds, onPostgres);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

/**
 * URLs on this machine, at the receiver's port, in the shapes a client might write them: the only
 * absolute URLs the fuzz sends, so that no webhook could ever be aimed off this machine.
 */
function localUrls(port: string): fc.Arbitrary<string> {
  const often = <T>(usual: T, ...rare: T[]) =>
    fc.oneof({ weight: 3 * rare.length, arbitrary: fc.constant(usual) }, fc.constantFrom(...rare));
  return fc
    .tuple(
      often('http', 'https', 'HTTP'),
      often('127.0.0.1', 'localhost', 'LocalHost', 'user:secret@127.0.0.1'),
      fc.stringMatching(/^(\/[a-z0-9._~-]{0,12}){0,3}$/),
      often('', '?a=1', '#part', '?q=%00', '?q=%ff'),
    )
    .map(([scheme, host, path, rest]) => `${scheme}://${host}:${port}${path}${rest}`);
}

function record(operation: Operation, status: number): void {
  const counted = tally.get(nameOf(operation)) ?? {};
  const statusClass = `${String(status)[0]}xx`;
  counted[statusClass] = (counted[statusClass] ?? 0) + 1;
  tally.set(nameOf(operation), counted);
}

/** Sends one generated request and checks properties 1 to 4 on its answer. */
async function exercise(planned: PlannedRequest): Promise<void> {
  const request = materialize(planned, world);
  const operation = planned.operation;
  const before = request.method !== 'GET' ? await counts.snapshot() : undefined;
  let answer: Answer;
  try {
    answer = await send(server.url, request);
  } catch (error) {
    throw new Error(describeExchange(request, error as Error, ['every request is answered']));
  }
  record(operation, answer.status);
  const violations = [...contractViolations(request, answer), ...leakViolations(world, request, answer)];
  if (before && answer.status >= 400 && answer.status <= 499) {
    // The first answer to an idempotency key, a refusal included, is kept for its retries (§2).
    const keyed =
      request.headers['idempotency-key'] !== undefined || request.body?.includes('"idempotencyKey"');
    violations.push(...storedViolations(before, await counts.snapshot(), keyed ? ['idempotency_keys'] : []));
  }
  if (violations.length > 0) throw new Error(describeExchange(request, answer, violations));
  if (operation.isPublic || !['key', 'read-only'].includes(planned.credentials)) return;
  world.harvest({
    caller: planned.caller,
    template: operation.template,
    method: request.method,
    path: request.path,
    status: answer.status,
    text: answer.text,
    json: answer.json,
    location: answer.location,
    url: request.url.split('?')[0] ?? request.url,
  });
}

function summary(elapsedMs: number): string {
  const classes: Record<string, number> = {};
  for (const counted of tally.values()) {
    for (const [statusClass, n] of Object.entries(counted))
      classes[statusClass] = (classes[statusClass] ?? 0) + n;
  }
  const total = Object.values(classes).reduce((sum, n) => sum + n, 0);
  const neverSucceeded = [...tally.entries()].filter(([, counted]) => !counted['2xx']).map(([name]) => name);
  const database = onPostgres ? 'postgres' : 'sqlite';
  return [
    `fuzz (${database}, seed ${SEED}): ${total} requests over ${tally.size} operations in ${(elapsedMs / 1000).toFixed(1)} s`,
    `answers: ${JSON.stringify(classes)}`,
    `operations without a success: ${neverSucceeded.join(', ') || 'none'}`,
  ].join('\n');
}

describe('every operation under generated requests', () => {
  it(
    `keeps the contract for ${RUNS} requests: no 5xx, decided problems, nothing stored on a refusal, no leak`,
    async () => {
      const started = Date.now();
      const localUrl = localUrls(new URL(receiver.url).port);
      const requests = requestArbitrary(operations, (operation) =>
        world.vocabulary(localUrl, operation.template),
      );
      await fc.assert(fc.asyncProperty(fc.limitShrink(requests, MAX_SHRINKS), exercise), {
        seed: SEED,
        numRuns: RUNS,
      });
      console.info(summary(Date.now() - started));
      const unexercised = operations.map(nameOf).filter((name) => !tally.has(name));
      expect(unexercised).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it('shows neither tenant what the other created, by address or in any list', async () => {
    const violations: string[] = [];
    for (const owner of [0, 1] as const) {
      const reader = world.tenants[1 - owner]?.client;
      const creator = world.tenants[owner].client;
      for (const location of world.tenants[owner].created) {
        const own = await creator.get(location);
        const seen = await reader?.get(location);
        if (own.status >= 300 || !seen || seen.status === 404) continue;
        // A brand id is chosen by the client: the reader may well have one of the same name.
        const named = idsIn(location).some((id) => world.ownerOf(id) === owner);
        if (named || JSON.stringify(seen.body) === JSON.stringify(own.body)) {
          violations.push(`tenant ${1 - owner} GET ${location} → ${seen.status}, created by tenant ${owner}`);
        }
      }
    }
    for (const reader of [0, 1] as const) violations.push(...(await sweepLists(reader)));
    expect(violations).toEqual([]);
  });

  it('points every active webhook subscription at this machine, and has sent nothing', async () => {
    const rows: { url: string; active: unknown }[] = await anyTables(server.database)
      .selectFrom('webhook_subscriptions')
      .select(['url', 'active'])
      .execute();
    const offMachine = rows.filter((row) => {
      const host = URL.canParse(row.url) ? new URL(row.url).hostname : undefined;
      return Boolean(row.active) && host !== '127.0.0.1' && host !== 'localhost';
    });
    expect(offMachine).toEqual([]);
    // No worker ran: no event was delivered, not even to the local receiver. Only the tests that
    // POST …/test sends at once may have reached it.
    const delivered = receiver.received.map((entry) => JSON.parse(entry.body).type);
    expect(delivered.filter((type) => type !== 'webhook.test')).toEqual([]);
  });
});

/** Every list and read of `reader`'s own contexts: none shows an id of the other tenant. */
async function sweepLists(reader: TenantIndex): Promise<string[]> {
  const client = world.tenants[reader].client;
  const contexts = Math.min(world.tenants[reader].contexts.length, SWEPT_CONTEXTS);
  const urls = new Set<string>();
  for (const operation of operations.filter(
    (candidate) => candidate.method === 'GET' && !candidate.isPublic,
  )) {
    const limit = operation.queryParameters.some((parameter) => parameter.name === 'limit')
      ? '?limit=100'
      : '';
    for (let index = 0; index < contexts; index++) {
      const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(world.resolve(new Known(`context:${name}`, 'caller', index), reader)),
      );
      urls.add(`${path}${limit}`);
    }
  }
  const violations: string[] = [];
  for (const url of urls) {
    const response = await client.request('GET', url);
    const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    const leaked = idsIn(text).filter((id) => world.ownerOf(id) === 1 - reader);
    if (leaked.length > 0) violations.push(`tenant ${reader} GET ${url} shows ${leaked.join(', ')}`);
  }
  return violations;
}
