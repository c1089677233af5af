import type { JobContext, ScheduledTask } from '../../jobs/types.ts';
import { giveUp, removeGivenUpBytes } from '../files/service.ts';
import { expiredTrash, fileInUse, markDeleted } from './store.ts';

/** What the purge uses of a job's context. */
export type PurgeContext = Pick<JobContext, 'database' | 'storage' | 'now'>;

export const TRASH_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 200;

/**
 * Deletes for good every asset that has been in the trash for 30 days: `deleted`, `deletedAt` set,
 * its links gone. A file that no asset uses any more (other than deleted ones) is given up and its
 * bytes removed. Each step is a conditional update, so the task is safe to repeat and to run
 * beside requests: an asset restored meanwhile stays, and a file that a new asset took up meanwhile
 * keeps its bytes.
 */
async function purge(context: PurgeContext): Promise<void> {
  const { database, now } = context;
  const db = database.db;
  const cutoff = now - TRASH_KEPT_MS;
  for (;;) {
    const batch = await expiredTrash(db, cutoff, BATCH);
    for (const asset of batch) {
      if (!(await markDeleted(db, asset, cutoff, now))) continue;
      if (!(await fileInUse(db, asset.tenant_id, asset.file_id))) {
        await giveUp(db, asset.tenant_id, asset.file_id, now);
      }
    }
    if (batch.length < BATCH) break;
  }
  await removeGivenUpBytes(context, (tenantId, fileId) => fileInUse(db, tenantId, fileId));
}

export const purgeTrashedAssets = {
  name: 'purge-trashed-assets',
  everyMs: 60 * 60 * 1000,
  run: purge,
} satisfies ScheduledTask;
