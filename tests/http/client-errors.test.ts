import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

// decisions §10: what the HTTP layer answers before a route runs is problem+json with a decided
// code, and slow clients are cut off.

let server: TestServer;
let api: Client;
let port: number;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

interface RawAnswer {
  status: number;
  headers: string;
  body: Record<string, unknown> | undefined;
  /** Milliseconds from connecting until the server closed the socket. */
  closedAfterMs: number;
}

function parse(text: string, closedAfterMs: number): RawAnswer {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  return { status, headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined, closedAfterMs };
}

/** Writes `chunks` to a raw socket (one every `everyMs`) and reads what comes back until it closes. */
function rawRequest(chunks: (string | Buffer)[], everyMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (data) => {
      received += data;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(parse(received, Date.now() - started));
    });
    const [first, ...rest] = chunks;
    socket.write(first ?? '');
    if (rest.length === 0) return;
    timer = setInterval(() => {
      const next = rest.shift();
      if (next === undefined) return clearInterval(timer);
      if (!socket.destroyed) socket.write(next);
    }, everyMs);
  });
}

function expectProblem(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers).toContain('content-type: application/problem+json');
  expect(answer.body).toMatchObject({ status, code, type: `urn:tailor:error:${code}` });
  expect(answer.body?.requestId).toEqual(expect.any(String));
}

describe('oversized and malformed requests', () => {
  it('answers 414 uri_too_long to a URL over 8192 characters', async () => {
    const within = await api.get(`/v0/persons?email=${'a'.repeat(8100)}`);
    expect(within.status).toBe(200);
    const over = await api.get(`/v0/persons?email=${'a'.repeat(9000)}`);
    expect(over.status).toBe(414);
    expect(over.body.code).toBe('uri_too_long');
    expect(over.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers 414 uri_too_long to a request line past the header limit', async () => {
    const answer = await rawRequest([`GET /v0/persons/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    expectProblem(answer, 414, 'uri_too_long');
  });

  it('answers 431 headers_too_large to a 100 KB header', async () => {
    const answer = await rawRequest([
      `GET /v0/persons HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`,
    ]);
    expectProblem(answer, 431, 'headers_too_large');
  });

  it('answers 400 validation_failed to bytes that are not HTTP', async () => {
    const answer = await rawRequest(['NOT HTTP AT ALL\r\n\r\n']);
    expectProblem(answer, 400, 'validation_failed');
  });

  it('answers 400 validation_failed problem+json to a CORS preflight without Origin', async () => {
    const bare = await server.anonymous().request('OPTIONS', '/v0/public/forms');
    expect(bare.status).toBe(400);
    expect(bare.headers.get('content-type')).toContain('application/problem+json');
    expect(bare.body.code).toBe('validation_failed');
    const noMethod = await server
      .anonymous()
      .request('OPTIONS', '/v0/public/forms', { headers: { origin: 'https://shop.example' } });
    expect(noMethod.body.code).toBe('validation_failed');
    const preflight = await server.anonymous().request('OPTIONS', '/v0/public/forms', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('slow clients', () => {
  it.concurrent('closes a request whose headers take over 10 s, with 408 request_timeout', async () => {
    const trickle = Array.from({ length: 20 }, (_, i) => `X-Slow-${i}: a\r\n`);
    const answer = await rawRequest(['GET /v0/persons HTTP/1.1\r\nHost: x\r\n', ...trickle], 1000);
    expectProblem(answer, 408, 'request_timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(9_000);
    expect(answer.closedAfterMs).toBeLessThan(13_000);
  }, 20_000);

  it.concurrent('closes a request whose body takes over 30 s, with 408 request_timeout', async () => {
    const head = `POST /v0/persons HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nx-api-key: ${api.apiKey}\r\n\r\n`;
    const answer = await rawRequest([head, ...Array.from({ length: 40 }, () => ' ')], 5000);
    expectProblem(answer, 408, 'request_timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(29_000);
    expect(answer.closedAfterMs).toBeLessThan(33_000);
  }, 45_000);
});

describe('draining', () => {
  it('answers 503 unavailable problem+json and closes the connection while shutting down', async () => {
    const node = await startServer({ database: server.database });
    const client = await node.newTenant();
    node.app.draining = true;
    const response = await client.get('/v0/persons');
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.code).toBe('unavailable');
    expect(response.headers.get('connection')).toBe('close');
    node.app.draining = false;
    await node.app.close();
  });
});
