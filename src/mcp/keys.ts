import { createHash, randomUUID } from 'node:crypto';
import { TailorProblem } from '@tailor/client';
import { stableStringify } from '../shared/stable-json.ts';

/**
 * Whether a failure says the request was answered and made nothing, so that the same call again is a
 * new request: a problem of the call itself (4xx), but not a 409 `conflict`, which may say that the
 * first request with the key is still running, nor a failure whose outcome is unknown (no answer, a
 * 5xx), after which the same key must be sent again to learn it.
 */
function madeNothing(error: unknown): boolean {
  return error instanceof TailorProblem && error.status < 500 && error.code !== 'conflict';
}

/**
 * The Idempotency-Keys of the calls of creating tools: a hash of this MCP server's run, the tool's
 * name and its arguments (key order aside). A host or an agent that makes the same call again (a
 * retry after a timeout, a lost answer) sends the same key, and the API answers the object the first
 * call made (it keeps an answer 24 h, per tenant) instead of creating a second. Once a call is refused
 * (409 invalid_state, 400…), the same call again is a new request with a new key: were the first
 * key's refusal replayed, a call refused until something changed (a link to a page not yet
 * published) would be refused for a day.
 */
export class CreateKeys {
  /** Keys of one run of `tailor mcp` are its own: another run, or another agent, makes its own objects. */
  readonly #run = randomUUID();
  /** How many times each call (by its text) was refused so far. */
  readonly #refusals = new Map<string, number>();

  /** Makes the request of a call with its key, keeping count of the call's refusals. */
  async send<T>(
    tool: string,
    args: Record<string, unknown>,
    request: (key: string) => Promise<T>,
  ): Promise<T> {
    const call = stableStringify({ tool, args });
    const refusals = this.#refusals.get(call) ?? 0;
    const key = createHash('sha256').update(`${this.#run}\n${refusals}\n${call}`).digest('hex');
    try {
      return await request(`tailor-mcp-${key}`);
    } catch (error) {
      if (madeNothing(error)) this.#refusals.set(call, refusals + 1);
      throw error;
    }
  }
}
