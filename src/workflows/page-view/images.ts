import type { TenantDb } from '../../db/tenant-db.ts';
import { assetFiles } from '../../resources/assets/service.ts';
import { fileLinks, type LinkSigner } from '../../resources/files/service.ts';

/** What a public page names its images by: uploaded files and library assets. */
export interface ImageRefs {
  fileIds: string[];
  assetIds: string[];
}

/** Signed download URLs of a page's images; an unknown or deleted file or asset has none. */
export interface ImageUrls {
  files: Map<string, string>;
  assets: Map<string, string>;
}

/**
 * Resolves every image of a page at once: one query for the assets, one for all the files, however
 * many widgets and logos the page has.
 */
export async function resolveImageUrls(db: TenantDb, links: LinkSigner, refs: ImageRefs): Promise<ImageUrls> {
  const fileOfAsset = await assetFiles(db, refs.assetIds);
  const fileIds = [...refs.fileIds, ...fileOfAsset.values()];
  const byFile = await fileLinks(db, links, fileIds);
  const urlOf = (fileId: string) => byFile.get(fileId)?.downloadUrl ?? undefined;
  const files = new Map<string, string>();
  for (const fileId of refs.fileIds) {
    const url = urlOf(fileId);
    if (url) files.set(fileId, url);
  }
  const assets = new Map<string, string>();
  for (const [assetId, fileId] of fileOfAsset) {
    const url = urlOf(fileId);
    if (url) assets.set(assetId, url);
  }
  return { files, assets };
}
