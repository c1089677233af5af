/**
 * Account search and pagination under load, on a large tenant.
 *
 *   npx tsx bench/account-search.ts [rows]            # SQLite in a temp dir
 *   DATABASE_URL=postgres://… TAILOR_SECRET=… npx tsx bench/account-search.ts [rows]
 *
 * Seeds `rows` accounts (default 1,000,000) straight into the database, starts the server on
 * loopback and drives it with autocannon for a few seconds per scenario. Prints one line per scenario.
 */
import autocannon from 'autocannon';
import { newId } from '../src/shared/ids.ts';
import { openBench, refreshStatistics, serveBench } from './support.ts';

const rows = Number(process.argv[2] ?? 1_000_000);
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

const bench = await openBench('Bench');
const { database, tenant } = bench;

const seedStart = Date.now();
for (let done = 0; done < rows; done += BATCH) {
  const now = Date.now();
  const batch = Array.from({ length: Math.min(BATCH, rows - done) }, (_, i) => {
    const n = done + i;
    const word = WORDS[n % WORDS.length] as string;
    return {
      id: newId('account'),
      tenant_id: tenant.tenantId,
      domain: `${word}-${n}.example`,
      name: `${word[0]?.toUpperCase()}${word.slice(1)} Holdings ${n}`,
      created_at: now,
      updated_at: now,
    };
  });
  await database.acrossTenants.insertInto('accounts').values(batch).execute();
}
const seedSeconds = (Date.now() - seedStart) / 1000;
await refreshStatistics(database);

const server = await serveBench(bench);
const url = server.url;
const headers = { 'x-api-key': tenant.apiKey };

async function deepCursor(pages: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const response = await fetch(`${url}/v0/accounts/search?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
      headers,
    });
    cursor = ((await response.json()) as { nextCursor: string }).nextCursor;
  }
  return cursor;
}

const scenarios: [string, string][] = [
  ['first page, no filter', '/v0/accounts/search'],
  ['substring query (rare: 1 match)', '/v0/accounts/search?query=holdings%20123456'],
  ['substring query (common: 10% match)', '/v0/accounts/search?query=globex'],
  ['page at depth 10,000 items', `/v0/accounts/search?limit=100&cursor=${await deepCursor(100)}`],
];

console.log(`database: ${database.dialect.name}; rows: ${rows}; seeded in ${seedSeconds.toFixed(1)} s`);
for (const [name, pathAndQuery] of scenarios) {
  const result = await autocannon({ url: `${url}${pathAndQuery}`, headers, connections: 10, duration: 5 });
  console.log(
    `${name}: ${result.requests.average.toFixed(0)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors + result.non2xx}`,
  );
}
console.log(`rss: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`);

await server.close();
