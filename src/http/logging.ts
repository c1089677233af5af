import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One log line per request, when it is answered, holding the request and its outcome: Fastify's
 * own logs a line as a request arrives and another as it is answered, twice the writes for what a
 * reader of the log wants on one line.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
