import net from 'node:net';
import { Transform } from 'node:stream';

export interface TcpProxy {
  /** The local port clients connect to instead of the target's. */
  port: number;
  /** Whether connections currently go through. */
  readonly open: boolean;
  /** Breaks every connection through the proxy, and every new one at once, until `restore()`. */
  cut(): void;
  /**
   * A silent partition until `restore()`: connections stay open and new ones are accepted, but
   * every byte either way is dropped, so nothing is refused and nothing is answered.
   */
  stall(): void;
  /** Lets connections through again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 to `target` that a test can cut off, stall and restore: a database that
 * goes away or stops answering and comes back, for the processes pointed at the proxy only, while
 * other tests keep theirs.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let open = true;
  let stalled = false;
  const gate = () =>
    new Transform({
      transform(chunk, _encoding, done) {
        done(null, stalled ? undefined : chunk);
      },
    });

  const server = net.createServer((client) => {
    if (!open) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.pipe(gate()).pipe(upstream);
    upstream.pipe(gate()).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const cut = () => {
    open = false;
    for (const { client, upstream } of pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    get open() {
      return open;
    },
    cut,
    stall() {
      stalled = true;
    },
    restore() {
      open = true;
      stalled = false;
    },
    close() {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A proxy on the way to the PostgreSQL at `databaseUrl`, and that URL through it; close it when done. */
export async function proxyToDatabase(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const direct = new URL(databaseUrl);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const proxied = new URL(direct);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return { proxy, url: proxied.toString() };
}
