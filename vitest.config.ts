import { configDefaults, defineConfig } from 'vitest/config';

// The suite runs on SQLite always, and again on PostgreSQL when TEST_DATABASE_URL is set.
const databases = ['sqlite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

/**
 * The fast lane (`npm run test:quick`, TAILOR_TEST_LANE=quick) leaves out what drives whole
 * processes or a browser for minutes: Chromium, crashes and cuts, the fuzzer, the walks through the
 * docs, the CLI's processes and the typed client packed and installed. `npm test` runs everything.
 */
const SLOW = [
  'tests/browser/**',
  'tests/fault/**',
  'tests/fuzz/**',
  'tests/docs/getting-started.test.ts',
  'tests/docs/caddy.test.ts',
  'tests/cli/**',
  'tests/client/package.test.ts',
];
const quick = process.env.TAILOR_TEST_LANE === 'quick';

export default defineConfig({
  test: {
    projects: databases.map((database) => ({
      test: {
        name: database,
        include: ['tests/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...(quick ? SLOW : [])],
        env: { TEST_DB: database },
        testTimeout: 30_000,
        hookTimeout: 60_000,
        // A poll waits for what another process does (a worker, a browser, a flush); on a busy CI
        // machine a second is not enough, and a poll that succeeds returns at once anyway.
        expect: { poll: { timeout: 10_000 } },
      },
    })),
  },
});
