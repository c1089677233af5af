import { defineConfig } from 'vitest/config';

// The suite runs on SQLite always, and again on PostgreSQL when TEST_DATABASE_URL is set.
const databases = ['sqlite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

export default defineConfig({
  test: {
    projects: databases.map((database) => ({
      test: {
        name: database,
        include: ['tests/**/*.test.ts'],
        env: { TEST_DB: database },
        testTimeout: 30_000,
        hookTimeout: 60_000,
      },
    })),
  },
});
