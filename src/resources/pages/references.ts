import type { TenantDb } from '../../db/tenant-db.ts';
import type { ActionCardWidget } from './schema.ts';

/**
 * What pages need to check the images their widgets name. The files and assets resources answer;
 * the server wires them in (src/wiring.ts).
 */
export interface ImageChecks {
  /** Fails with a 400 at `path` unless `fileId` is an image file of the tenant that is not deleted. */
  assertImageFile(db: TenantDb, fileId: string, path: string): Promise<void>;
  /** Fails with a 400 at `path` unless `assetId` is an asset of the tenant that is not deleted. */
  assertLiveAsset(db: TenantDb, assetId: string, path: string): Promise<void>;
}

/** Widget logos may name an image file and an asset of the tenant; each must exist (400 otherwise). */
export async function assertImageReferences(
  db: TenantDb,
  widgets: ActionCardWidget[],
  checks: ImageChecks,
): Promise<void> {
  for (const [w, widget] of widgets.entries()) {
    for (const [l, { image }] of widget.logos.entries()) {
      const at = `/body/actionCardWidgets/${w}/logos/${l}/image`;
      if (image.fileId) await checks.assertImageFile(db, image.fileId, `${at}/fileId`);
      if (image.assetId) await checks.assertLiveAsset(db, image.assetId, `${at}/assetId`);
    }
  }
}
