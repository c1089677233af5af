// Runs the fuzz suite alone: `npm run fuzz -- --runs 50000 --seed 7`. On SQLite, and on PostgreSQL
// too when TEST_DATABASE_URL is set (vitest.config.ts). --runs sets the requests per database.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, seed: { type: 'string' } },
});
for (const [name, value] of Object.entries(values)) {
  if (!/^\d+$/.test(value)) {
    console.error(`--${name} must be a whole number, not "${value}"`);
    process.exit(2);
  }
}

const env = { ...process.env };
if (values.runs) env.FUZZ_RUNS = values.runs;
if (values.seed) env.FUZZ_SEED = values.seed;
const result = spawnSync('npx', ['vitest', 'run', 'tests/fuzz'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
