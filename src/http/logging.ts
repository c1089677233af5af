import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { pino } from 'pino';

/**
 * One log line per request, when it is answered, holding the request and its outcome: Fastify's
 * own logs a line as a request arrives and another as it is answered, twice the writes for what a
 * reader of the log wants on one line. An authenticated request's line names its tenant and key.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const caller = request.caller;
    const line = {
      req: request,
      res: reply,
      responseTime: reply.elapsedTime,
      tenantId: caller?.tenantId,
      keyId: caller?.keyId,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** What a turn's lines may reach before they are written at once, without waiting for the turn's end. */
const WRITE_AT_BYTES = 8192;
/**
 * Lines waiting to be written past this are dropped (sonic-boom's `drop`) rather than held: an
 * output that cannot keep up must not grow the process without bound.
 */
const MOST_PENDING_BYTES = 16 * 1024 * 1024;

let batchedStdout: pino.DestinationStream | undefined;

/**
 * Lines to `fd`, one write per turn of the event loop: the lines of every request answered in a
 * turn go out together, synchronously, once the turn's I/O is done (setImmediate), or as soon as
 * they reach WRITE_AT_BYTES. Writing each line by itself took a tenth of a busy server's time (one
 * system call per request). A line waits at most until its turn ends; those still pending when the
 * process exits are written then.
 */
export function linesPerTurn(fd: number): pino.DestinationStream {
  const stream = pino.destination({
    fd,
    sync: true,
    minLength: WRITE_AT_BYTES,
    maxLength: MOST_PENDING_BYTES,
  });
  let scheduled = false;
  const endOfTurn = () => {
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
        setImmediate(endOfTurn);
      }
    },
  };
}

/**
 * The server's logger options: to standard output a turn at a time, unless they name a stream of
 * their own. One stream per process, whatever the servers in it, so that their lines never
 * interleave.
 */
export function loggerOptions(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const options = logger === true ? {} : logger;
  if ('stream' in options) return options;
  batchedStdout ??= linesPerTurn(1);
  return { ...options, stream: batchedStdout };
}
