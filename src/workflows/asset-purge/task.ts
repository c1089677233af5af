import type { ScheduledTask } from '../../jobs/types.ts';
import { deleteExpiredTrash, isFileInUse, TRASH_KEPT_MS } from '../../resources/assets/service.ts';
import { giveUp, removeGivenUpBytes } from '../../resources/files/service.ts';
import type { FileStorage } from '../../resources/files/storage.ts';

/**
 * Every hour, assets that have been in the trash for 30 days are deleted for good, and a file that
 * no asset uses any more is given up and its bytes removed from `storage`. A file that a new asset
 * took up meanwhile keeps its bytes.
 */
export function assetPurge(storage: FileStorage): ScheduledTask {
  return {
    name: 'assets.purge',
    everyMs: 60 * 60 * 1000,
    async run(context) {
      const { database, now } = context;
      await deleteExpiredTrash(database.acrossTenants(), now - TRASH_KEPT_MS, now, (tenantId, fileId) =>
        giveUp(database.acrossTenants(), tenantId, fileId, now),
      );
      await removeGivenUpBytes(context, storage, (tenantId, fileId) =>
        isFileInUse(database.acrossTenants(), tenantId, fileId),
      );
    },
  };
}
