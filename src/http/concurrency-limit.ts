import type { FastifyReply } from 'fastify';
import { AppError } from '../shared/errors.ts';

/**
 * At most `perKey` requests of one key (a client address) in progress at once on this node, each
 * counted until its answer is sent or its connection closes. What such a request holds while it
 * answers (an open file, a connection to the bucket) is so bounded per client, however many
 * requests it opens and however slowly it reads.
 */
export interface ConcurrencyLimit {
  /** Counts the request in until its response closes; throws rate_limited (Retry-After: 1) when `key` has none left. */
  enter(key: string, reply: FastifyReply): void;
}

export interface ConcurrencyLimitOptions {
  /** Requests in progress at once per key; 0 turns the limit off. */
  perKey: number;
  /** What is limited, for the 429 message: "downloads". */
  counts: string;
}

export function createConcurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  if (options.perKey === 0) return { enter: () => {} };
  const inProgress = new Map<string, number>();
  const leave = (key: string) => {
    const left = (inProgress.get(key) ?? 1) - 1;
    if (left === 0) inProgress.delete(key);
    else inProgress.set(key, left);
  };
  return {
    enter(key, reply) {
      const count = inProgress.get(key) ?? 0;
      if (count >= options.perKey) {
        reply.header('Retry-After', 1);
        throw new AppError(
          'rate_limited',
          `At most ${options.perKey} ${options.counts} at once per client; wait for one to finish`,
        );
      }
      // A client gone before its turn (while the rate limit was asked) holds no slot: its close
      // has already been told, and would never be again.
      if (reply.raw.closed) return;
      inProgress.set(key, count + 1);
      reply.raw.once('close', () => leave(key));
    },
  };
}
