import type { RowCounts } from '../engine.ts';

/** SQLite's triggers keep each count in its row (one writer at a time): no changes to fold. */
export const sqliteRowCounts: RowCounts = {
  appended: false,
  fold: async () => 0,
};
