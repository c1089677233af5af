import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, sqliteFile } from '../../src/db/connection.ts';
import { NextReads } from '../../src/db/per-turn.ts';
import { issueKey, revoke } from '../../src/resources/api-keys/service.ts';
import type { ServedTables } from '../../src/workflows/page-view/served-store.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { onPostgres, startServer, type TestServer, testDatabaseUrl } from '../helpers/server.ts';

// Reads shared by the requests of one turn of the event loop (src/db/per-turn.ts): what a request
// reads through them is never older than the turn it is handled in, so a change committed before
// the next turn, by another node or by this process, is seen by that turn's requests.

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailor-per-turn-'));
const connect = async () =>
  openDatabase({ databaseUrl: onPostgres ? await testDatabaseUrl() : undefined, dataDir });

let server: TestServer;
/** A node of its own: another connection (another pool) to the same database. */
let otherNode: Database;
let tenantId: string;

beforeAll(async () => {
  server = await startServer({ database: await connect() });
  otherNode = await connect();
  tenantId = (await server.newTenant()).tenantId;
});
afterAll(async () => {
  await server.close();
  await otherNode.close();
  await server.database.close();
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The tenant's serving generation through `database`, and how often it was read. */
function generations(database: Database) {
  const db = database.acrossTenants<ServedTables>();
  const counted = { reads: 0 };
  const shared = database.perTurn(async (id: string) => {
    counted.reads++;
    const row = await db
      .selectFrom('serving_generations')
      .select('generation')
      .where('tenant_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.generation);
  });
  return { get: () => shared.get(tenantId), counted };
}

function bump(db: Kysely<ServedTables>): Promise<unknown> {
  return db
    .updateTable('serving_generations')
    .set((eb) => ({ generation: eb('generation', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .execute();
}

describe('a read shared by a turn', () => {
  it('is read once by the requests of one turn, and again in the next', async () => {
    const { get, counted } = generations(server.database);
    const [a, b, c] = await Promise.all([get(), get(), get()]);
    expect(counted.reads).toBe(1);
    expect(new Set([a, b, c]).size).toBe(1);
    await nextTurn();
    await get();
    expect(counted.reads).toBe(2);
  });

  it('sees a change committed by another node between two turns', async () => {
    const { get } = generations(server.database);
    const before = await get();
    await bump(otherNode.acrossTenants<ServedTables>());
    await nextTurn();
    expect(await get()).toBe(before + 1);
  });

  it('sees a change this process committed as soon as the commit is answered, in the same turn', async () => {
    const { get } = generations(server.database);
    const before = await get();
    await bump(server.database.acrossTenants<ServedTables>());
    expect(await get()).toBe(before + 1);
  });
});

describe('the API keys’ change check', () => {
  // PostgreSQL counts notices, which arrive on their own connection: no read to share there.
  it.skipIf(onPostgres)(
    'reads SQLite’s change counter once per turn; a change elsewhere shows in the next',
    async () => {
      const watch = server.database.watchChanges('api_keys');
      // Another process's connection, committing synchronously, within one turn of this one.
      const elsewhere = new SQLite(sqliteFile(dataDir));
      try {
        await nextTurn();
        const before = watch.version();
        elsewhere.prepare("UPDATE change_counts SET n = n + 1 WHERE name = 'api_keys'").run();
        // Committed after this turn began: its requests were all sent before, and share its read.
        expect(watch.version()).toBe(before);
        expect(watch.latest()).not.toBe(before);
        await nextTurn();
        expect(watch.version()).toBe(watch.latest());
        expect(watch.version()).not.toBe(before);
      } finally {
        elsewhere.close();
        await watch.close();
      }
    },
  );

  it('refuses a key revoked by another node on the next turn’s requests', async () => {
    const watch = server.database.watchChanges('api_keys');
    try {
      const key = await issueKey(anyTables(server.database), tenantId);
      await nextTurn();
      const before = watch.version();
      await revoke(anyTables(otherNode), key.keyId);
      await expect
        .poll(async () => {
          await nextTurn();
          return watch.version();
        })
        .not.toBe(before);
    } finally {
      await watch.close();
    }
  });
});

describe('reads shared by the requests that ask before they begin (NextReads)', () => {
  /** Reads that count themselves and answer which read they were. */
  function counted(bound?: number) {
    const reads = new NextReads<string, string>(bound);
    const begun: string[] = [];
    const read = (key: string) => async () => {
      begun.push(key);
      return `${key} #${begun.length}`;
    };
    return { get: (key: string) => reads.get(key, read(key)), begun };
  }

  it('reads once for a turn’s askers of a key, after the turn’s askers, and again in the next turn', async () => {
    const { get, begun } = counted();
    const answers = [get('a'), get('a'), get('b'), get('a')];
    // Nothing is read while the turn's requests may still ask.
    expect(begun).toEqual([]);
    expect(await Promise.all(answers)).toEqual(['a #1', 'a #1', 'b #2', 'a #1']);
    expect(await get('a')).toBe('a #3');
  });

  it('does not share a read that has begun with a request that asks after it began', async () => {
    const reads = new NextReads<string, number>();
    let begun = 0;
    let askedDuringTheRead: Promise<number> | undefined;
    const read = async () => {
      const number = ++begun;
      if (number === 1) askedDuringTheRead = reads.get('a', read);
      return number;
    };
    expect(await reads.get('a', read)).toBe(1);
    expect(await askedDuringTheRead).toBe(2);
  });

  it('gives every asker a failed read’s error, and reads again for the next', async () => {
    const reads = new NextReads<string, string>();
    let fail = true;
    const read = async () => {
      if (fail) throw new Error('away');
      return 'back';
    };
    const answers = [reads.get('a', read), reads.get('a', read)];
    for (const answer of answers) await expect(answer).rejects.toThrow('away');
    fail = false;
    expect(await reads.get('a', read)).toBe('back');
  });

  it('shares the reads of at most `bound` keys in a turn; a key past them is read by each asker', async () => {
    const { get, begun } = counted(2);
    const answers = [get('a'), get('b'), get('c'), get('c'), get('a')];
    // The keys past the bound are read at once, each time they are asked for.
    expect(begun).toEqual(['c', 'c']);
    expect(await Promise.all(answers)).toEqual(['a #3', 'b #4', 'c #1', 'c #2', 'a #3']);
  });
});
