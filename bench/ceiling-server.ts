/**
 * The stack under Tailor, layer by layer, for `npm run bench -- ceiling`: Fastify answering fixed
 * bytes, then with Tailor's request log line, then with two primary-key reads of SQLite per request
 * (what an account read needs at least); and, for a person's create, Fastify with the log line and
 * the create's own SQLite statements on Tailor's schema, committed once per turn as Tailor's driver
 * does (what a create needs at least). Run as
 * `node --import tsx bench/ceiling-server.ts <layer> <port> <dir>`.
 */
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { sqliteFile } from '../src/db/sqlite/open.ts';
import { requestLogging } from '../src/http/logging.ts';
import { newId } from '../src/shared/ids.ts';
import { createTenantWithKey } from '../src/workflows/tenant-setup/service.ts';
import type { Target } from './harness.ts';

export const LAYERS = ['fastify', 'fastify+log', 'fastify+log+sqlite', 'fastify+log+person-sql'] as const;
export type Layer = (typeof LAYERS)[number];

/** What each layer is asked: the account read, or (the last) a person's create as person-create sends it. */
export function layerTarget(layer: Layer): Target {
  if (layer !== 'fastify+log+person-sql')
    return { path: '/v0/accounts/acc_1', headers: { 'x-api-key': 'key' } };
  return {
    method: 'POST',
    path: '/v0/persons',
    headers: { 'x-api-key': 'key', 'content-type': 'application/json' },
    body: '{"name":"Dana Reyes [<n>]","email":"dana.[<n>]@northwind-[<n%100>].example"}',
  };
}

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

const PERSON_COLUMNS = [
  'id',
  'account_id',
  'name',
  'email',
  'email_key',
  'domain',
  'domain_given',
  'slug',
  'phone_number',
  'linkedin_profile_url',
  'latest_activity_at',
  'created_at',
  'updated_at',
  'tenant_id',
];

/**
 * A person's create as SQLite runs it for Tailor, with nothing else: Tailor's migrated schema (every
 * index and trigger of persons), the account looked up by domain, the insert under a savepoint of its
 * own, and once per turn the search changes applied and the group committed (synchronous = FULL),
 * the answer sent after the commit. Slugs are the name's own (the bench's names are unique).
 */
async function personCreates(dir: string) {
  const database = openDatabase({ databaseUrl: undefined, dataDir: dir });
  await migrateToLatest(database);
  const { tenantId } = await createTenantWithKey(database, { name: 'Ceiling' });
  await database.close();
  const sqlite = new SQLite(sqliteFile(dir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  const now = Date.now();
  const insertAccount = sqlite.prepare(
    'INSERT INTO accounts (id, tenant_id, domain, name, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?)',
  );
  for (let n = 0; n < 100; n++)
    insertAccount.run(newId('account'), tenantId, `northwind-${n}.example`, now, now);
  const account = sqlite
    .prepare<[string, string], string>(
      'select "id" from "accounts" where "domain" = ? and "accounts"."tenant_id" = ?',
    )
    .pluck();
  const insert = sqlite.prepare(
    `insert into "persons" (${PERSON_COLUMNS.map((c) => `"${c}"`).join(', ')}) values (${PERSON_COLUMNS.map(() => '?').join(', ')}) on conflict ("tenant_id", "slug") do nothing`,
  );
  const statement = (text: string) => {
    const prepared = sqlite.prepare(text);
    return () => prepared.run();
  };
  const begin = statement('BEGIN IMMEDIATE');
  const savepoint = statement('SAVEPOINT unit');
  const release = statement('RELEASE unit');
  const applySearchChanges = statement('INSERT INTO search_changes_applied DEFAULT VALUES');
  const commit = statement('COMMIT');
  let waiting: (() => void)[] = [];
  const commitGroup = () => {
    applySearchChanges();
    commit();
    const answered = waiting;
    waiting = [];
    for (const answer of answered) answer();
  };
  return (body: { name: string; email: string }, answer: () => void) => {
    if (waiting.length === 0) {
      begin();
      setImmediate(commitGroup);
    }
    const email = body.email;
    const domain = email.slice(email.indexOf('@') + 1);
    const at = Date.now();
    savepoint();
    const slug = body.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    insert.run(
      newId('person'),
      account.get(domain, tenantId) ?? null,
      body.name,
      email,
      email.toLowerCase(),
      domain,
      0,
      slug,
      null,
      null,
      null,
      at,
      at,
      tenantId,
    );
    release();
    waiting.push(answer);
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
    app.post<{ Body: { name: string; email: string } }>('/v0/persons', (request, reply) => {
      create(request.body, () => reply.code(201).type('application/json; charset=utf-8').send(PERSON_ANSWER));
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
