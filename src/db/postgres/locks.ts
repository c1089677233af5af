import { sql } from 'kysely';
import type { Locks, Notifier } from '../engine.ts';

export const postgresLocks: Locks = {
  skipLocked: (query) => query.forUpdate().skipLocked(),
  forShare: (query) => query.forShare(),
  async lockUntilCommit(db, key) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
  },
};

/** NOTIFY, delivered at commit (never on rollback) and once per transaction and channel. */
export const postgresNotifier: Notifier = {
  async notify(db, channel) {
    await sql`SELECT pg_notify(${channel}, '')`.execute(db);
  },
};
