import type { TenantDb } from '../../db/tenant-db.ts';
import { assetFiles } from '../../resources/assets/service.ts';
import { imageLinks, type LinkSigner } from '../../resources/files/service.ts';

/** What a public page names its images by: uploaded files and library assets. */
export interface ImageRefs {
  fileIds: string[];
  assetIds: string[];
}

/**
 * Lasting URLs of a page's images: they do not expire, so that the page can be kept as it is
 * rendered (served.ts) and browsers keep the images; a deleted file or asset has none.
 */
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
  const byFile = await imageLinks(db, links, [...refs.fileIds, ...fileOfAsset.values()]);
  const files = new Map<string, string>();
  for (const fileId of refs.fileIds) {
    const url = byFile.get(fileId);
    if (url) files.set(fileId, url);
  }
  const assets = new Map<string, string>();
  for (const [assetId, fileId] of fileOfAsset) {
    const url = byFile.get(fileId);
    if (url) assets.set(assetId, url);
  }
  return { files, assets };
}
