import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import {
  createTailorClient,
  type TailorClient,
  TailorConnectionError,
  TailorPathParameterError,
  TailorProblem,
  TailorTimeoutError,
  unwrap,
} from '@tailor/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startServer, type TestServer } from '../helpers/server.ts';

// Decisions §9, "The typed client is a package" and "Path parameters are ids": the built client
// (dist/, through its exports map) against a live server, through a proxy on 127.0.0.1 that can
// answer in the server's place, drop a connection or hold a request.

const { version } = JSON.parse(
  fs.readFileSync(new URL('../../clients/typescript/package.json', import.meta.url), 'utf8'),
);

/** What the proxy does with one request instead of forwarding it. */
type Interception = { answer: number; headers?: Record<string, string> } | { drop: true } | { hold: true };

interface Arrival {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

interface Proxy {
  url: string;
  arrivals: Arrival[];
  /** The next requests, one each, get these instead of the server's answer. */
  intercept(...interceptions: Interception[]): void;
  close(): Promise<void>;
}

/** Answers that the proxy does not copy: it sends the body as it read it, whole and decoded. */
const HOP_HEADERS = new Set([
  'connection',
  'content-encoding',
  'content-length',
  'keep-alive',
  'transfer-encoding',
]);

async function startProxy(target: string): Promise<Proxy> {
  const arrivals: Arrival[] = [];
  const pending: Interception[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer(async (request, response) => {
    const body = await text(request);
    arrivals.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      at: Date.now(),
    });
    const interception = pending.shift();
    if (interception && 'drop' in interception) return request.socket.destroy();
    if (interception && 'hold' in interception) return void held.add(response);
    if (interception) {
      const problem = {
        type: 'about:blank',
        title: 'Busy',
        status: interception.answer,
        code: 'unavailable',
      };
      response.writeHead(interception.answer, {
        'content-type': 'application/problem+json',
        ...interception.headers,
      });
      return void response.end(JSON.stringify({ ...problem, detail: 'try again', requestId: 'proxy' }));
    }
    const headers = Object.entries(request.headers).filter(
      ([name]) => name !== 'host' && name !== 'connection',
    );
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers: headers as [string, string][],
      body: body === '' ? undefined : body,
    });
    const kept = [...answer.headers].filter(([name]) => !HOP_HEADERS.has(name));
    response.writeHead(answer.status, Object.fromEntries(kept));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    intercept: (...interceptions) => pending.push(...interceptions),
    close: () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let server: TestServer;
let apiKey: string;
let proxy: Proxy;
let tailor: TailorClient;

beforeAll(async () => {
  server = await startServer();
  apiKey = (await server.newTenant()).apiKey as string;
});
afterAll(() => server.close());
afterEach(() => proxy?.close());

async function throughProxy(options: { maxRetries?: number; timeout?: number } = {}): Promise<TailorClient> {
  proxy = await startProxy(server.url);
  tailor = createTailorClient({ baseUrl: proxy.url, apiKey, ...options });
  return tailor;
}

/** The persons of the tenant named `name`, read directly from the server. */
async function personsNamed(name: string): Promise<unknown[]> {
  const client = createTailorClient({ baseUrl: server.url, apiKey });
  const list = await unwrap(client.GET('/v0/persons', { params: { query: { query: name, limit: 100 } } }));
  return list.items.filter((person) => person.name === name);
}

describe('retries', () => {
  it('waits out a 503 with Retry-After: 1 and sends the POST again with the same Idempotency-Key', async () => {
    await throughProxy();
    proxy.intercept({ answer: 503, headers: { 'retry-after': '1' } });

    const person = await unwrap(tailor.POST('/v0/persons', { body: { name: 'Retried once' } }));

    expect(person.name).toBe('Retried once');
    const [first, second, ...more] = proxy.arrivals;
    expect(more).toEqual([]);
    const key = first?.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(second?.headers['idempotency-key']).toBe(key);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect(await personsNamed('Retried once')).toHaveLength(1);
  });

  it('keeps the Idempotency-Key the caller set, and honours a Retry-After given as an HTTP date', async () => {
    await throughProxy();
    const inASecond = new Date(Date.now() + 1500).toUTCString();
    proxy.intercept({ answer: 429, headers: { 'retry-after': inASecond } });

    await unwrap(
      tailor.POST('/v0/persons', {
        body: { name: 'Keyed by caller' },
        headers: { 'Idempotency-Key': 'mine-1' },
      }),
    );

    expect(proxy.arrivals.map((arrival) => arrival.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1']);
    const waited = (proxy.arrivals[1]?.at ?? 0) - (proxy.arrivals[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(400);
  });

  it('sends a POST again after a dropped connection, once only, and the person is created once', async () => {
    await throughProxy();
    proxy.intercept({ drop: true });

    await unwrap(tailor.POST('/v0/persons', { body: { name: 'After a drop' } }));

    expect(proxy.arrivals).toHaveLength(2);
    expect(proxy.arrivals[1]?.headers['idempotency-key']).toBe(proxy.arrivals[0]?.headers['idempotency-key']);
    expect(await personsNamed('After a drop')).toHaveLength(1);
  });

  it('does not send a public POST again after a dropped connection: it takes no Idempotency-Key', async () => {
    await throughProxy();
    proxy.intercept({ drop: true });
    const body = { token: 'not-checked', sessionId: 'dropped-session-1', events: [] };

    const failed = await tailor
      .POST('/v0/public/events', { params: { header: { 'Content-Type': 'application/json' } }, body })
      .catch((error) => error);

    expect(failed).toBeInstanceOf(TailorConnectionError);
    expect(proxy.arrivals).toHaveLength(1);
  });

  it('gives up after maxRetries, set per client and per call, and answers the last 503 as a TailorProblem', async () => {
    await throughProxy({ maxRetries: 1 });
    proxy.intercept({ answer: 503 }, { answer: 503 }, { answer: 503 });
    const failed = await unwrap(tailor.GET('/v0/tenant')).catch((error) => error);
    expect(failed).toBeInstanceOf(TailorProblem);
    expect(failed).toMatchObject({ status: 503, code: 'unavailable', requestId: 'proxy' });
    expect(proxy.arrivals).toHaveLength(2);

    proxy.arrivals.length = 0;
    const once = await tailor
      .withOptions({ maxRetries: 0 })
      .POST('/v0/persons', { body: { name: 'Not retried' } });
    expect(once.response.status).toBe(503);
    expect(proxy.arrivals).toHaveLength(1);
    expect(proxy.arrivals[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('names itself and its version in User-Agent', async () => {
    await throughProxy();
    await unwrap(tailor.GET('/v0/tenant'));
    expect(proxy.arrivals[0]?.headers['user-agent']).toBe(
      `tailor-client-node/${version} node/${process.versions.node}`,
    );
  });
});

describe('errors that are not answers', () => {
  it('throws TailorTimeoutError when no answer comes within the timeout, without retrying', async () => {
    await throughProxy();
    proxy.intercept({ hold: true });
    const started = Date.now();

    const failed = await tailor
      .withOptions({ timeout: 300 })
      .GET('/v0/tenant')
      .catch((error) => error);

    expect(failed).toBeInstanceOf(TailorTimeoutError);
    expect(failed).toMatchObject({ timeout: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(proxy.arrivals).toHaveLength(1);
  });

  it('throws TailorConnectionError, not a raw fetch failure, when the connection is refused', async () => {
    const port = await freePort();
    const nobody = createTailorClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey });
    const failed = await nobody.GET('/v0/tenant').catch((error) => error);
    expect(failed).toBeInstanceOf(TailorConnectionError);
    expect(failed.message).toContain('ECONNREFUSED');
    expect(failed.message).toContain(`GET http://127.0.0.1:${port}/v0/tenant`);
  });

  it('gives a problem its request id, the one the server sends in x-request-id', async () => {
    const client = createTailorClient({ baseUrl: server.url, apiKey });
    const { error, response } = await client.GET('/v0/persons/{person_id}', {
      params: { path: { person_id: 'person_00000000000000000000000000' } },
    });
    const problem = await unwrap(Promise.resolve({ error, response })).catch((thrown) => thrown);
    expect(problem).toBeInstanceOf(TailorProblem);
    expect(problem.requestId).toBe(response.headers.get('x-request-id'));
  });
});

describe('path parameters (decisions §9: path parameters are ids)', () => {
  it('refuses "..", "." and an empty id before sending, so publish on an audience never publishes the page', async () => {
    await throughProxy();
    const created = await unwrap(
      tailor.POST('/v0/pages', {
        body: {
          name: 'Turned',
          pageContext: 'A page that must stay a draft.',
          brandId: 'acme',
          actions: [],
          actionCardWidgets: [],
          scripts: [],
        },
      }),
    );
    proxy.arrivals.length = 0;

    for (const turned of ['..', '.', '']) {
      const refused = await tailor
        .POST('/v0/pages/{page_id}/audiences/{audience_id}/publish', {
          params: { path: { page_id: created.pageId, audience_id: turned } },
        })
        .catch((error) => error);
      expect(refused).toBeInstanceOf(TailorPathParameterError);
      expect(refused).toMatchObject({ parameter: 'audience_id', value: turned });
    }
    const missing = await tailor
      .GET('/v0/pages/{page_id}', { params: { path: {} } } as never)
      .catch((error) => error);
    expect(missing).toMatchObject({
      name: 'TailorPathParameterError',
      parameter: 'page_id',
      value: undefined,
    });

    expect(proxy.arrivals).toEqual([]);
    const after = await unwrap(
      tailor.GET('/v0/pages/{page_id}', { params: { path: { page_id: created.pageId } } }),
    );
    expect(after.status).toBe('draft');
  });

  it('encodes a value, so that a slash or a query stays inside its segment', async () => {
    await throughProxy();
    const { response } = await tailor.GET('/v0/persons/{person_id}', {
      params: { path: { person_id: '../pages?x=1#y' } },
    });
    expect(response.status).toBe(404);
    expect(proxy.arrivals[0]?.url).toBe('/v0/persons/..%2Fpages%3Fx%3D1%23y');
  });
});
