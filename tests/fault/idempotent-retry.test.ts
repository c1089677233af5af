import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { anyTables } from '../helpers/any-tables.ts';
import { type Answer, call, faultEnvironment, report, TailorNode } from './support.ts';

/** Concurrent clients of the load: enough that a kill always finds several requests in flight. */
const CLIENTS = 24;
/** Load between start and kill: some hundred requests answered, a few dozen in flight at the kill. */
const LOAD_MS = 2_000;
/**
 * How long after the kill a retry may still hear that its key is in progress (409): the claims of
 * a dead process are given up 10 s after their last sign of life (src/http/idempotency.ts), with a
 * margin for the restart and a loaded machine.
 */
const RETRY_BOUND_MS = 25_000;
const RETRY_PAUSE_MS = 250;

type Kind = 'topic' | 'person' | 'page' | 'webhook';
const KINDS: Kind[] = ['topic', 'person', 'page', 'webhook'];

interface Create {
  path: string;
  /** The value that makes the object of the request with `tag` unique, in `table`.`column`. */
  value(tag: string): string;
  body(value: string): object;
  table: string;
  column: string;
}

const CREATES: Record<Kind, Create> = {
  topic: {
    path: '/v0/topics',
    value: (tag) => `Topic ${tag}`,
    body: (title) => ({ title }),
    table: 'topics',
    column: 'title',
  },
  person: {
    path: '/v0/persons',
    value: (tag) => `Person ${tag}`,
    body: (name) => ({ name }),
    table: 'persons',
    column: 'name',
  },
  page: {
    path: '/v0/pages',
    value: (tag) => `Page ${tag}`,
    body: (name) => ({
      name,
      pageContext: 'A retry after a crash writes nothing twice.',
      brandId: 'fault',
      actions: [{ actionId: 'contact', buttonTitle: 'Talk to sales', actionType: 'form' }],
      actionCardWidgets: [],
      scripts: [],
    }),
    table: 'pages',
    column: 'name',
  },
  webhook: {
    path: '/v0/webhook_subscriptions',
    value: (tag) => `http://127.0.0.1:9/hooks/${tag}`,
    body: (url) => ({ url, events: [] }),
    table: 'webhook_subscriptions',
    column: 'url',
  },
};

interface Sent {
  kind: Kind;
  tag: string;
  first: Answer;
}

/** The create of `kind` for `tag`, always with the same key and body. */
function send(url: string, kind: Kind, tag: string): Promise<Answer> {
  const create = CREATES[kind];
  return call(url, 'POST', create.path, {
    body: create.body(create.value(tag)),
    headers: { 'idempotency-key': `${kind}-${tag}` },
  });
}

/** Sends the request again until the answer is not "still in progress" (or the deadline passed). */
async function retry(url: string, sent: Sent, deadline: number): Promise<Answer> {
  for (;;) {
    const answer = await send(url, sent.kind, sent.tag);
    if (answer.status !== 409 || answer.body?.code !== 'conflict' || Date.now() > deadline) return answer;
    await sleep(RETRY_PAUSE_MS);
  }
}

/** The first answer as a replay shows it: a webhook secret masked, all else the same. */
function asReplayed(sent: Sent): unknown {
  const body = sent.first.body;
  if (sent.kind !== 'webhook') return body;
  return { ...body, secret: expect.stringMatching(/^whsec_\*+$/) };
}

function countByKind(sent: Sent[]): Record<string, number> {
  return Object.fromEntries(KINDS.map((kind) => [kind, sent.filter((one) => one.kind === kind).length]));
}

describe('idempotent POSTs across kill -9', () => {
  it('a retry with the same key after a crash makes each object once and replays each first answer', async () => {
    const { env, inspect } = await faultEnvironment({ TAILOR_WORKERS: '0' });
    const node = await TailorNode.start('serve', env);
    const run = randomBytes(3).toString('hex');
    const sent: Sent[] = [];
    let stopped = false;
    const client = async (index: number) => {
      for (let n = 0; !stopped; n++) {
        const kind = KINDS[(index + n) % KINDS.length] as Kind;
        const tag = `${run}-${index}-${n}`;
        const first = await send(node.url, kind, tag);
        sent.push({ kind, tag, first });
        // No answer: the node is dead, and this client's part of the load is over.
        if (first.status === 0) return;
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
    await sleep(LOAD_MS);
    const killedAt = Date.now();
    await node.kill();
    stopped = true;
    await Promise.all(clients);
    await node.start();

    const retries = await Promise.all(sent.map((one) => retry(node.url, one, killedAt + RETRY_BOUND_MS)));
    const settledAfterMs = Date.now() - killedAt;

    // How many objects each request made, read from the database.
    const madeBy = new Map<Sent, number>();
    for (const kind of KINDS) {
      const { table, column, value } = CREATES[kind];
      const rows: Record<string, string>[] = await anyTables(inspect)
        .selectFrom(table)
        .select(column)
        .execute();
      const made = new Map<string, number>();
      for (const row of rows) made.set(row[column] as string, (made.get(row[column] as string) ?? 0) + 1);
      for (const one of sent.filter((one) => one.kind === kind))
        madeBy.set(one, made.get(value(one.tag)) ?? 0);
    }
    report('idempotent retries after kill -9', {
      sent: sent.length,
      unanswered: sent.filter((one) => one.first.status === 0).length,
      madeTwice: countByKind(sent.filter((one) => (madeBy.get(one) ?? 0) > 1)),
      madeNever: countByKind(sent.filter((one) => madeBy.get(one) === 0)),
      settledAfterMs,
    });

    expect(
      sent.filter((one) => madeBy.get(one) !== 1).map((one) => `${one.kind} ${one.tag}: ${madeBy.get(one)}`),
    ).toEqual([]);
    for (const [i, one] of sent.entries()) {
      const again = retries[i] as Answer;
      const what = `${one.kind} ${one.tag}: first ${one.first.status}, retry ${again.status} ${JSON.stringify(again.body)}`;
      expect(again.status, what).toBe(201);
      // A request answered before the kill is replayed; one cut off by it was either done (and is
      // replayed) or not (and runs now).
      if (one.first.status === 0) continue;
      expect(one.first.status, what).toBe(201);
      expect(again.headers?.get('idempotent-replayed'), what).toBe('true');
      expect(again.body, what).toEqual(asReplayed(one));
      expect(again.headers?.get('location'), what).toBe(one.first.headers?.get('location'));
    }
    expect(sent.some((one) => one.first.status === 0)).toBe(true);
  }, 120_000);
});
