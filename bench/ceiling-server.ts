/**
 * The stack under Tailor, layer by layer, for `npm run bench -- ceiling`: Fastify answering fixed
 * bytes, then with Tailor's request log line, then with two primary-key reads of SQLite per request
 * (what an account read needs at least). Run as `node --import tsx bench/ceiling-server.ts <layer> <port> <dir>`.
 */
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { requestLogging } from '../src/http/logging.ts';

export const LAYERS = ['fastify', 'fastify+log', 'fastify+log+sqlite'] as const;
export type Layer = (typeof LAYERS)[number];

/** About the size of an account with one linked person, as account-get answers it. */
export const ANSWER = JSON.stringify({
  accountId: 'acc_5b0d4a1c2e3f4a5b6c7d8e9f',
  domain: 'northwind.example',
  name: 'Northwind',
  linkedPersonsCount: 1,
  latestActivityAt: null,
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
  linkedPersons: [
    {
      personId: 'per_5b0d4a1c2e3f4a5b6c7d8e9f',
      accountId: 'acc_5b0d4a1c2e3f4a5b6c7d8e9f',
      name: 'Dana Reyes',
      email: 'dana@northwind.example',
      slug: 'dana-reyes',
      createdAt: '2026-11-27T10:00:00.000Z',
      updatedAt: '2026-11-27T10:00:00.000Z',
    },
  ],
});

function twoReads(dir: string): () => void {
  const sqlite = new SQLite(path.join(dir, 'ceiling.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS rows (tenant_id text, id text, body text, PRIMARY KEY (tenant_id, id))',
  );
  sqlite.prepare('INSERT OR REPLACE INTO rows VALUES (?, ?, ?)').run('t', 'a', ANSWER);
  const read = sqlite.prepare('SELECT id, body FROM rows WHERE tenant_id = ? AND id = ?');
  return () => {
    read.get('t', 'a');
    read.get('t', 'a');
  };
}

async function serve(layer: Layer, port: number, dir: string): Promise<void> {
  const logged = layer !== 'fastify';
  const app = Fastify(logged ? requestLogging({ level: 'info' }) : {});
  const read = layer === 'fastify+log+sqlite' ? twoReads(dir) : () => {};
  app.get('/v0/accounts/:id', (_request, reply) => {
    read();
    reply.type('application/json; charset=utf-8').send(ANSWER);
  });
  await app.listen({ port, host: '127.0.0.1' });
  process.send?.('ready');
}

if (process.argv[1] === import.meta.filename) {
  const [layer, port, dir] = process.argv.slice(2);
  if (!LAYERS.includes(layer as Layer)) throw new Error(`layer: one of ${LAYERS.join(', ')}`);
  await serve(layer as Layer, Number(port), dir as string);
}
