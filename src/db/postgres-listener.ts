import pg from 'pg';

/** A listener on a channel (Database.listen); `close` ends it. */
export interface Listening {
  close(): Promise<void>;
}

const RETRY_FIRST_MS = 250;
const RETRY_LONGEST_MS = 5_000;

/**
 * The LISTEN connections of one database: each listener has a connection of its own (a session
 * that listens cannot be lent out by the pool), opened at once and kept. When one drops (the
 * database restarts, the network breaks) it connects again, after 250 ms and then twice as long
 * each time up to 5 s, and once it listens again it tells its listener as if notified, since what
 * was sent meanwhile never reached it. Until then its listener finds work by polling.
 */
export class PostgresListeners {
  private readonly open = new Set<Listening>();

  constructor(private readonly connectionString: string) {}

  /** Calls `onNotice` for each notification on `channel`, and each time the connection is back. */
  listen(channel: string, onNotice: () => void): Listening {
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let retryMs = RETRY_FIRST_MS;
    let closed = false;

    const dropped = (which: pg.Client) => {
      if (client !== which) return;
      client = undefined;
      which.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_LONGEST_MS);
    };

    const connect = async () => {
      const connecting = new pg.Client({
        connectionString: this.connectionString,
        connectionTimeoutMillis: 5_000,
        keepAlive: true,
      });
      client = connecting;
      connecting.on('error', () => dropped(connecting));
      connecting.on('end', () => dropped(connecting));
      connecting.on('notification', () => onNotice());
      try {
        await connecting.connect();
        await connecting.query(`LISTEN ${connecting.escapeIdentifier(channel)}`);
      } catch {
        dropped(connecting);
        return;
      }
      if (client !== connecting) return;
      retryMs = RETRY_FIRST_MS;
      onNotice();
    };

    const listening: Listening = {
      close: async () => {
        closed = true;
        this.open.delete(listening);
        clearTimeout(retry);
        const current = client;
        client = undefined;
        await current?.end().catch(() => {});
      },
    };
    this.open.add(listening);
    void connect();
    return listening;
  }

  /** Ends every listener still open. */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((listening) => listening.close()));
  }
}
