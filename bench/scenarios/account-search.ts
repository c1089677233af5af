/**
 * Account search and pagination on a tenant of a million accounts: `GET /v0/accounts/search`.
 *
 *   npm run bench -- account-search [--accounts 1000000]
 *
 * Seeds one tenant with `accounts` accounts straight into the database, in batches of 2,000:
 * account n is "<Word> Holdings n" at <word>-n.example, the word one of ten in turn, so that each
 * word is in a tenth of the accounts and "holdings" in every name. Refreshes the planner's
 * statistics, starts `tailor serve` on CPU 0, and for each scenario drives Tailor against a bare
 * server answering the same bytes (10 connections), then sends 200 requests one at a time. The
 * scenarios: the first page of every account; a query matching one old account ("holdings"
 * followed by a number an eighth of the way from the oldest); a word matching a tenth of them;
 * the page at depth 10,000 by cursor.
 */

import { newId } from '../../src/shared/ids.ts';
import { anyTables } from '../../tests/helpers/any-tables.ts';
import {
  compareWithBare,
  fmt,
  parseOptions,
  printMemory,
  printSetting,
  sequentialLatency,
  type Target,
} from '../harness.ts';
import type { Scenario } from '../scenario.ts';
import { apiAs, type Bench, openBench, refreshStatistics, serveProcess } from '../support.ts';

const BATCH = 2000;
const WORDS = [
  'acme',
  'globex',
  'initech',
  'umbrella',
  'hooli',
  'stark',
  'wayne',
  'wonka',
  'tyrell',
  'cyberdyne',
];
/** A few people searching at once: the users of a team's console, not a crowd. */
const CONNECTIONS = 10;

async function seedAccounts(bench: Bench, total: number): Promise<void> {
  for (let done = 0; done < total; done += BATCH) {
    const now = Date.now();
    const rows = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
      const n = done + i;
      const word = WORDS[n % WORDS.length] as string;
      return {
        id: newId('account'),
        tenant_id: bench.tenant.tenantId,
        domain: `${word}-${n}.example`,
        name: `${word[0]?.toUpperCase()}${word.slice(1)} Holdings ${n}`,
        created_at: now,
        updated_at: now,
      };
    });
    await anyTables(bench.database).insertInto('accounts').values(rows).execute();
  }
}

interface SearchPage {
  nextCursor: string | null;
  totalCount: number;
}

export default {
  name: 'account-search',
  summary: 'account search at a million accounts: first page, one match, a tenth matching, depth 10,000',
  usage: '--accounts 1000000',
  async run(args) {
    const options = parseOptions(args, { accounts: 1_000_000 });
    const bench = await openBench('Account search bench');
    const seedStart = Date.now();
    await seedAccounts(bench, options.accounts);
    await refreshStatistics(bench.database);
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const server = await serveProcess(bench);
    try {
      const api = apiAs(server.url, bench.tenant.apiKey);
      let cursor = '';
      for (let page = 0; page < 100; page++) {
        const found = await api<SearchPage>(
          'GET',
          `/v0/accounts/search?limit=100${cursor && `&cursor=${cursor}`}`,
        );
        cursor = found.nextCursor ?? '';
      }
      // Ten times the number is past the last account, so only its own name holds this.
      const oneMatch = `holdings ${Math.floor(options.accounts * 0.123456)}`;
      const scenarios: [string, string][] = [
        ['first page, no query', '/v0/accounts/search'],
        ['one match', `/v0/accounts/search?query=${encodeURIComponent(oneMatch)}`],
        ['a tenth matching', '/v0/accounts/search?query=globex'],
        ['depth 10,000 by cursor', `/v0/accounts/search?limit=100&cursor=${cursor}`],
      ];
      const target = (path: string): Target => ({ path, headers: { 'x-api-key': bench.tenant.apiKey } });
      printSetting(
        `account search: ${fmt(options.accounts)} accounts seeded in ${seedSeconds.toFixed(1)} s; tailor serve pinned to CPU 0 with the bare server, autocannon on CPU 1; ${CONNECTIONS} connections`,
      );
      for (const [label, path] of scenarios) {
        const { totalCount } = await api<SearchPage>('GET', path);
        console.log(`${label}: ${path.slice(0, 80)} answers totalCount ${fmt(totalCount)}`);
      }
      for (const [label, path] of scenarios) {
        await compareWithBare(label, server.url, target(path), { connections: CONNECTIONS });
      }
      for (const [label, path] of scenarios) await sequentialLatency(label, server.url, target(path));
      printMemory(server.pid);
    } finally {
      await server.close();
    }
  },
} satisfies Scenario;
