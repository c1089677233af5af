import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer = (
  request: Received,
  index: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/** A local webhook receiver that records what it gets and answers as told, on `port` or a free one. */
export async function startReceiver(answer: Answer = () => ({ status: 204 }), port = 0) {
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
      const send = () => response.writeHead(reply.status, reply.headers).end();
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    port: listening,
    url: `http://127.0.0.1:${listening}/hooks`,
    received,
    events: () => received.map((entry) => JSON.parse(entry.body) as { id: string; type: string; data: any }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
