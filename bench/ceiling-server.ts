/**
 * The stack under Tailor, layer by layer, for `npm run bench -- ceiling`: Fastify answering fixed
 * bytes, then with Tailor's request log line, then with two primary-key reads of SQLite per request
 * (what an account read needs at least); and, for a person's create and a batch of events, Fastify
 * with the log line and their own SQLite statements alone (bench/ceiling-writes.ts: what each needs
 * at least). Run as
 * `node --import tsx bench/ceiling-server.ts <layer> <port> <dir>`.
 */
import path from 'node:path';
import Fastify from 'fastify';
import { connectSqlite } from '../src/db/sqlite/open.ts';
import { requestLogging } from '../src/http/logging.ts';
import { type EventsBody, eventBatches, type PersonBody, personCreates } from './ceiling-writes.ts';

export const LAYERS = [
  'fastify',
  'fastify+log',
  'fastify+log+sqlite',
  'fastify+log+person-sql',
  'fastify+log+events-sql',
] as const;
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

/** About the size of a created person, as person-create answers it. */
const PERSON_ANSWER = JSON.stringify({
  personId: 'person_01KB4YJ5Q8M2N6P9R3T7V1X4Z8',
  name: 'Dana Reyes 1a2b3c4d5',
  email: 'dana.1a2b3c4d5@northwind-5.example',
  domain: 'northwind-5.example',
  slug: 'dana-reyes-1a2b3c4d5',
  phoneNumber: null,
  linkedinProfileUrl: null,
  createdAt: '+1795000000000',
  updatedAt: '+1795000000000',
});

function twoReads(dir: string): () => void {
  const sqlite = connectSqlite(path.join(dir, 'reads'));
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
  if (layer === 'fastify+log+person-sql') {
    const create = await personCreates(dir);
    app.post<{ Body: PersonBody }>('/v0/persons', (request, reply) => {
      create(request.body, () => reply.code(201).type('application/json; charset=utf-8').send(PERSON_ANSWER));
    });
  }
  if (layer === 'fastify+log+events-sql') {
    const record = await eventBatches(dir);
    app.post<{ Body: EventsBody }>('/v0/public/events', (request, reply) => {
      const accepted = request.body.events.length;
      record(request.body, () =>
        reply.type('application/json; charset=utf-8').send(`{"accepted":${accepted}}`),
      );
    });
  }
  await app.listen({ port, host: '127.0.0.1' });
  process.send?.('ready');
}

if (process.argv[1] === import.meta.filename) {
  const [layer, port, dir] = process.argv.slice(2);
  if (!LAYERS.includes(layer as Layer)) throw new Error(`layer: one of ${LAYERS.join(', ')}`);
  await serve(layer as Layer, Number(port), dir as string);
}
