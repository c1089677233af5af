import type { TenantDb } from '../../db/tenant-db.ts';
import { assertLiveAsset } from '../assets/service.ts';
import { assertImageFile } from '../files/service.ts';
import type { ActionCardWidget } from './schema.ts';

/** Widget logos may name an image file and an asset of the tenant; each must exist (400 otherwise). */
export async function assertImageReferences(db: TenantDb, widgets: ActionCardWidget[]): Promise<void> {
  for (const [w, widget] of widgets.entries()) {
    for (const [l, { image }] of widget.logos.entries()) {
      const at = `/body/actionCardWidgets/${w}/logos/${l}/image`;
      if (image.fileId) await assertImageFile(db, image.fileId, `${at}/fileId`);
      if (image.assetId) await assertLiveAsset(db, image.assetId, `${at}/assetId`);
    }
  }
}
