import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameOf, type Operation, operationsOf } from '../fuzz/operations.ts';
import { materialize, type PlannedRequest, requestArbitrary, type SentRequest } from '../fuzz/requests.ts';
import { seedWorld } from '../fuzz/seed.ts';
import { Known } from '../fuzz/values.ts';
import { World } from '../fuzz/world.ts';
import { type LiveAnswer, ResponseChecker } from '../helpers/openapi-responses.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// Decisions §9, "the document says everything the server does": live traffic over every operation,
// valid and invalid requests, cursors followed, each answer checked against the document the
// server serves (status, media type, headers, body) by a strict validator. Rate limits are on (and
// high), so that their headers are sent and checked.

/** Generated requests (the fuzz suite's generator, with a fixed seed): about 7 per operation. */
const GENERATED = Number(process.env.TRAFFIC_REQUESTS ?? 600);
const SEED = 20261127;
/** Requests to each operation the generated ones missed. */
const ONE_OPERATION = 5;
const LIMITS = { rateLimitRps: 100_000, publicRateLimitRps: 100_000 };

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let server: TestServer;
let receiver: Receiver;
let world: World;
let operations: Operation[];
let checker: ResponseChecker;
/** What each answer broke, once per operation, status and violation. */
const found = new Set<string>();
const statuses = new Map<string, Set<number>>();

/** The operation a request names: the template that matches its path with the fewest parameters. */
function operationAt(method: string, path: string): Operation | undefined {
  const matching = operations.filter(
    (candidate) =>
      candidate.method === method &&
      new RegExp(`^${candidate.template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  );
  return matching.sort((a, b) => a.pathParameters.length - b.pathParameters.length)[0];
}

/**
 * Every answer the test gets, the seeding's included, checked against the document: fetch is
 * wrapped for the file's run.
 */
function checkEveryAnswer(): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? 'GET';
    const operation = url.origin === server.url ? operationAt(method, url.pathname) : undefined;
    if (!operation) return response;
    const text = await response.text();
    const answer = { status: response.status, headers: response.headers, text };
    const seen = statuses.get(nameOf(operation)) ?? new Set();
    statuses.set(nameOf(operation), seen.add(answer.status));
    for (const violation of checker.violations(operation.method, operation.template, answer)) {
      found.add(`${nameOf(operation)} → ${answer.status}: ${violation}`);
    }
    const body = [101, 204, 205, 304].includes(response.status) ? null : text;
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return () => {
    globalThis.fetch = original;
  };
}

let restoreFetch: () => void = () => {};

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer(LIMITS);
  world = new World([await server.newTenant(), await server.newTenant()]);
  const document = (await server.anonymous().get('/v0/openapi.json')).body;
  operations = operationsOf(document);
  checker = new ResponseChecker(document);
  restoreFetch = checkEveryAnswer();
  await seedWorld(world, server.database, receiver.url);
}, 120_000);
afterAll(async () => {
  restoreFetch();
  await server?.close();
  await receiver?.close();
});

async function exchange(request: {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Buffer;
}): Promise<LiveAnswer & { json: unknown }> {
  const response = await fetch(`${server.url}${request.url}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The operation's path with the ids of one of the caller's seeded contexts. */
function pathOf(operation: Operation, context = 0): string {
  return operation.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(world.resolve(new Known(`context:${name}`, 'caller', context), 0)),
  );
}

describe('live traffic against the served document', () => {
  it('answers every read as declared, and every list page by page through its cursors', async () => {
    const key = { 'x-api-key': world.tenants[0].client.apiKey as string };
    for (const read of operations.filter((candidate) => candidate.method === 'GET')) {
      if (read.template.startsWith('/v0/public/')) continue;
      const paged = read.queryParameters.some((parameter) => parameter.name === 'cursor');
      const url = `${pathOf(read)}${paged ? '?limit=1' : ''}`;
      const first = await exchange({ method: 'GET', url, headers: key });
      const cursor = (first.json as { nextCursor?: string } | undefined)?.nextCursor;
      if (paged && cursor) {
        await exchange({ method: 'GET', url: `${url}&cursor=${encodeURIComponent(cursor)}`, headers: key });
        await exchange({
          method: 'GET',
          url: `${url}&cursor=${encodeURIComponent(`${cursor}x`)}`,
          headers: key,
        });
      }
      await exchange({ method: 'GET', url });
      await exchange({ method: 'GET', url, headers: { 'x-api-key': 'tlr_not-a-key' } });
    }
    expect([...found]).toEqual([]);
  });

  it('answers the operations and the public side at their edges as declared', async () => {
    await exchange({ method: 'GET', url: '/healthz?x=%00' });
    await exchange({ method: 'GET', url: `/healthz?x=${'a'.repeat(9000)}` });
    await exchange({ method: 'GET', url: '/healthz', headers: { 'x-big': 'a'.repeat(17_000) } });
    await exchange({ method: 'GET', url: '/readyz' });
    const script = await exchange({ method: 'GET', url: '/v0/public/tracker.js' });
    const etag = script.headers.get('etag') ?? '';
    const notModified = await exchange({
      method: 'GET',
      url: '/v0/public/tracker.js',
      headers: { 'if-none-match': etag },
    });
    expect([...(statuses.get('GET /healthz') ?? [])].sort()).toEqual([200, 400, 414, 431]);
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('content-type')).toBeNull();
    await exchange({ method: 'GET', url: '/v0/public/domains?domain=nobody.example' });
    await exchange({ method: 'GET', url: '/v0/public/domains' });
    expect([...found]).toEqual([]);
  });

  it(`answers ${GENERATED} generated requests, valid and invalid, over every operation as declared`, async () => {
    const localUrl = fc.constant(`${receiver.url}/hook`);
    const sample = (among: Operation[], numRuns: number) =>
      fc.sample(
        requestArbitrary(among, (candidate) => world.vocabulary(localUrl, candidate.template)),
        { seed: SEED, numRuns },
      );
    // The operations the sample missed get a few requests of their own: a new operation shifts what
    // a seeded sample draws, and must not leave another one unexercised by chance.
    const missed = () => operations.filter((operation) => !statuses.has(nameOf(operation)));
    await sendAll(sample(operations, GENERATED));
    await sendAll(missed().flatMap((operation) => sample([operation], ONE_OPERATION)));
    expect([...found]).toEqual([]);
    const unexercised = missed().map(nameOf);
    expect(unexercised).toEqual([]);
    // Every read succeeded in the sweep, and the seeding made one of everything with valid requests.
    const neverSucceeded = [...statuses].filter(([, seen]) => ![...seen].some((status) => status < 300));
    expect(neverSucceeded.length).toBeLessThan(operations.length / 4);
  }, 120_000);
});

/** Sends the planned requests in turn, and keeps what the answers hand out for those that follow. */
async function sendAll(planned: PlannedRequest[]): Promise<void> {
  for (const plan of planned) {
    const request: SentRequest = materialize(plan, world);
    // Another method on the operation's path is no answer of the operation (405, a preflight).
    if (request.method !== plan.operation.method) continue;
    const answer = await exchange(request);
    if (!['key', 'read-only'].includes(plan.credentials) || plan.operation.isPublic) continue;
    world.harvest({
      caller: plan.caller,
      template: plan.operation.template,
      method: request.method,
      path: request.path,
      status: answer.status,
      text: answer.text,
      json: answer.json,
      location: answer.headers.get('location'),
      url: request.url.split('?')[0] ?? request.url,
    });
  }
}
