import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer = (
  request: Received,
  index: number,
) => { status: number; headers?: Record<string, string> } | 'hang';

/** A local webhook receiver that records what it gets and answers as told. */
export async function startReceiver(answer: Answer = () => ({ status: 204 })) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const entry = { headers: request.headers, body };
      received.push(entry);
      const reply = answer(entry, received.length - 1);
      if (reply === 'hang') return;
      response.writeHead(reply.status, reply.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    events: () => received.map((entry) => JSON.parse(entry.body) as { id: string; type: string; data: any }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
