import pg from 'pg';
import type { Listening } from '../engine.ts';

const RETRY_FIRST_MS = 250;
const RETRY_LONGEST_MS = 5_000;

/**
 * Round trips on one connection, one at a time: pg queues a query sent while another is under way
 * but warns that it will refuse it (pg 9). A call while one is under way shares the next, sent once
 * that one is answered, so it still goes out after the call.
 */
function oneAtATime(send: () => Promise<unknown>): () => Promise<void> {
  let underWay: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const trip = send().then(() => {});
    underWay = trip;
    const done = () => {
      if (underWay === trip) underWay = undefined;
    };
    trip.then(done, done);
    return trip;
  };
  return () => {
    if (!underWay) return start();
    next ??= underWay
      .catch(() => {})
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}

/** A listener that tells whether its connection listens now. */
export interface PostgresListening extends Listening {
  /** True from LISTEN's answer until the connection drops: no notice can have been missed meanwhile. */
  readonly listening: boolean;
  /**
   * Resolves once every notice committed before the call has reached the listener: a round trip
   * on the listening connection, since PostgreSQL sends a session the notices pending for it before
   * it answers the session's statement. At once while not listening (nothing is trusted then); a
   * round trip that fails drops the connection, as the heartbeat's does.
   */
  caughtUp(): Promise<void>;
}

/**
 * The LISTEN connections of one database: each listener has a connection of its own (a session
 * that listens cannot be lent out by the pool), opened at once and kept. When one drops (the
 * database restarts, the network breaks) it connects again, after 250 ms and then twice as long
 * each time up to 5 s, and once it listens again it tells its listener as if notified, since what
 * was sent meanwhile never reached it. Until then its listener finds work by polling.
 *
 * Whether it listens now is `listening`: a cache that trusts notices to tell it of changes trusts
 * them only then.
 *
 * Connecting, LISTEN and a heartbeat sent every `timeoutMs` each give up after
 * `timeoutMs`: a connection across a silent partition (open, but nothing answers) counts as dropped
 * then, rather than listen to nothing until the system's keep-alive gives up hours later.
 */
export class PostgresListeners {
  private readonly open = new Set<Listening>();

  constructor(
    private readonly connectionString: string,
    private readonly timeoutMs: number,
  ) {}

  /** Calls `onNotice` for each notification on `channel`, and each time the connection is back. */
  listen(channel: string, onNotice: () => void): PostgresListening {
    const statement = `LISTEN ${pg.escapeIdentifier(channel)}`;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let retryMs = RETRY_FIRST_MS;
    let closed = false;
    let listening = false;
    // LISTEN again on the listening connection, one round trip at a time (caughtUp and the heartbeat).
    let relisten: () => Promise<void> = async () => {};

    const dropped = (which: pg.Client) => {
      if (client !== which) return;
      client = undefined;
      listening = false;
      clearTimeout(heartbeat);
      which.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_LONGEST_MS);
    };

    // The heartbeat listens again: a no-op on a channel the session listens to already, which
    // leaves it showing as a listener (pg_stat_activity.query) to whoever looks.
    const beat = (listening: pg.Client, relisten: () => Promise<void>) => {
      heartbeat = setTimeout(async () => {
        try {
          await relisten();
        } catch {
          dropped(listening);
          return;
        }
        if (client === listening) beat(listening, relisten);
      }, this.timeoutMs);
    };

    const connect = async () => {
      const connecting = new pg.Client({
        connectionString: this.connectionString,
        connectionTimeoutMillis: this.timeoutMs,
        query_timeout: this.timeoutMs,
        keepAlive: true,
      });
      client = connecting;
      connecting.on('error', () => dropped(connecting));
      connecting.on('end', () => dropped(connecting));
      connecting.on('notification', () => onNotice());
      try {
        await connecting.connect();
        await connecting.query(statement);
      } catch {
        dropped(connecting);
        return;
      }
      if (client !== connecting) return;
      listening = true;
      retryMs = RETRY_FIRST_MS;
      relisten = oneAtATime(() => connecting.query(statement));
      beat(connecting, relisten);
      onNotice();
    };

    const handle: PostgresListening = {
      get listening() {
        return listening;
      },
      caughtUp: async () => {
        const current = client;
        if (!listening || !current) return;
        try {
          // LISTEN again, as the heartbeat does: any statement would do.
          await relisten();
        } catch {
          dropped(current);
        }
      },
      close: async () => {
        closed = true;
        listening = false;
        this.open.delete(handle);
        clearTimeout(retry);
        clearTimeout(heartbeat);
        const current = client;
        client = undefined;
        await current?.end().catch(() => {});
      },
    };
    this.open.add(handle);
    void connect();
    return handle;
  }

  /** Ends every listener still open. */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((listening) => listening.close()));
  }
}
