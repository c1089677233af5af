import type { ScheduledTask } from './types.ts';

/** Changes folded per statement: one statement's work stays short. */
const BATCH = 10_000;
/** Batches per run at most: a run that leaves some behind is followed by the next one. */
const MAX_BATCHES = 50;

/**
 * Folds the changes appended beside the tenants' row counts (migration 0028, PostgreSQL) into the
 * counts, every second, so that a count reads its row and at most about a second's changes.
 */
export const foldRowCounts: ScheduledTask = {
  name: 'row-counts.fold',
  everyMs: 1000,
  // SQLite's triggers keep each count in its row: a run there would only take a job slot and a commit.
  neededOn: (database) => database.appendsRowCountChanges,
  async run({ database }) {
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      if ((await database.foldRowCounts(BATCH)) < BATCH) return;
    }
  },
};
