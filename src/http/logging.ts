import os from 'node:os';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { pino } from 'pino';

/** How the server logs: at `level` (pino's `info` by default), to `stream` (standard output by default). */
export interface LoggerSetting {
  level?: string;
  stream?: pino.DestinationStream;
}

const json = JSON.stringify;
const INFO = pino.levels.values.info as number;

/** What JSON escapes in a string (quotes, backslashes, controls) and lone surrogates' halves. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what JSON escapes.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `text` as a JSON string: as it is between quotes when nothing in it is escaped (most are ids). */
function quoted(text: string): string {
  return ESCAPED.test(text) ? json(text) : `"${text}"`;
}

/**
 * `text` between quotes as it is: for what can hold nothing JSON escapes (a request id, which is a
 * UUID or matched `[\w.:-]`, an HTTP method token, the ids of tenants and keys), without the test.
 */
function plain(text: string): string {
  return `"${text}"`;
}

/** `,"name":value`, or nothing when there is no value (as JSON.stringify leaves undefined out). */
function field(name: string, value: unknown): string {
  if (value === undefined) return '';
  return `,"${name}":${typeof value === 'string' ? quoted(value) : json(value)}`;
}

/**
 * One log line per request, when it is answered, holding the request and its outcome: Fastify's
 * own logs a line as a request arrives and another as it is answered, twice the writes for what a
 * reader of the log wants on one line. An authenticated request's line names its tenant and key.
 *
 * The line of an answered request is written here, by hand, straight to the logger's stream: the
 * fields pino would write for it (level, time, pid, hostname, reqId, then Fastify's `req` and `res`
 * serializers' fields, responseTime, tenantId, keyId, msg), in the same order, for about a quarter of
 * the CPU of pino's serializers and its generic JSON. A request that errored (rare) goes through
 * pino as before, with its `err`.
 */
export class OneLinePerRequest extends LogController {
  /** `,"pid":…,"hostname":…`: pino's base fields, the same for every line of the process. */
  private readonly base = `,"pid":${process.pid},"hostname":${json(os.hostname())}`;

  /** `out`: where answered requests' lines go (none when logging is off or above `info`). */
  constructor(private readonly out: pino.DestinationStream | undefined) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      const caller = request.caller;
      reply.log.error(
        {
          req: request,
          res: reply,
          responseTime: reply.elapsedTime,
          tenantId: caller?.tenantId,
          keyId: caller?.keyId,
          err: error,
        },
        'request errored',
      );
    } else {
      this.out?.write(this.line(request, reply));
    }
  }

  /** The `request completed` line of an answered request. */
  line(request: FastifyRequest, reply: FastifyReply): string {
    const caller = request.caller;
    return (
      `{"level":${INFO},"time":${Date.now()}${this.base},"reqId":${plain(request.id)}` +
      `,"req":{"method":${plain(request.method)},"url":${quoted(request.url)}` +
      `${field('version', request.headers['accept-version'])}${field('host', request.host)}` +
      `${field('remoteAddress', request.ip)}${field('remotePort', request.socket?.remotePort)}}` +
      `,"res":{"statusCode":${reply.statusCode}},"responseTime":${reply.elapsedTime}` +
      `${caller ? `,"tenantId":${plain(caller.tenantId)},"keyId":${plain(caller.keyId)}` : ''}` +
      ',"msg":"request completed"}\n'
    );
  }
}

/** What the pending lines may reach before they are written at once, without waiting for their time. */
const WRITE_AT_BYTES = 8192;
/** How long a line may wait for others to be written with. */
export const WRITE_WITHIN_MS = 10;
/**
 * Lines waiting to be written past this are dropped (sonic-boom's `drop`) rather than held: an
 * output that cannot keep up must not grow the process without bound.
 */
const MOST_PENDING_BYTES = 16 * 1024 * 1024;

let batchedStdout: pino.DestinationStream | undefined;

/**
 * Lines to `fd`, written together: synchronously, WRITE_WITHIN_MS after the first of them, or as
 * soon as they reach WRITE_AT_BYTES. Writing each line by itself took a tenth of a busy server's
 * time (one system call per request); writing the lines of each turn of the event loop together
 * still cost a sixth of an account read's CPU with 10 clients, whose turns hold a few requests
 * each. A line waits at most WRITE_WITHIN_MS; those still pending when the process exits are
 * written then.
 */
export function batchedLines(fd: number): pino.DestinationStream {
  const stream = pino.destination({
    fd,
    sync: true,
    minLength: WRITE_AT_BYTES,
    maxLength: MOST_PENDING_BYTES,
  });
  let scheduled = false;
  const writePending = () => {
    scheduled = false;
    try {
      stream.flush();
    } catch {
      // An output that cannot be written to (closed, a broken pipe) loses its lines; the server
      // goes on, as pino's own destination does.
    }
  };
  process.once('exit', () => stream.flushSync());
  return {
    write(line: string) {
      stream.write(line);
      if (!scheduled) {
        scheduled = true;
        // Unreferenced: pending lines never keep the process alive; they are written at its exit.
        setTimeout(writePending, WRITE_WITHIN_MS).unref();
      }
    },
  };
}

/**
 * The server's logger options and its request lines: to standard output in batches, unless the
 * setting names a stream of its own. One stream per process, whatever the servers in it, so that
 * their lines never interleave.
 */
export function requestLogging(
  setting: boolean | LoggerSetting | undefined,
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (!setting) return { logger: false, logController: new OneLinePerRequest(undefined) };
  const { level = 'info', stream } = setting === true ? {} : setting;
  if (!stream) batchedStdout ??= batchedLines(1);
  const out = stream ?? batchedStdout;
  const writesInfo = (pino.levels.values[level] ?? Number.POSITIVE_INFINITY) <= INFO;
  return {
    logger: { level, stream: out },
    logController: new OneLinePerRequest(writesInfo ? out : undefined),
  };
}
