import type { Signer } from '../../shared/signing.ts';
import { IMAGE_FORMATS, type ImageFormat, PREVIEW_TYPE } from './images.ts';

/**
 * Signed download links. A link names the tenant, the file, which bytes (the original or its
 * preview), their format and an expiry, and carries an HMAC over all of them, so that changing any
 * part (another file, another tenant, a later expiry, another content type) invalidates it. The
 * download route needs no database: everything it serves by is in the signed link.
 */

/** What a service needs to hand out links; the Fastify instance has both. */
export interface LinkSigner {
  signer: Signer;
  /** Absolute base of the links, without a trailing slash. */
  publicUrl: string;
}

export type Variant = 'original' | 'preview';

export interface DownloadTarget {
  tenantId: string;
  fileId: string;
  variant: Variant;
  format: ImageFormat;
}

const PURPOSE = 'file-download';
export const LINK_VALID_MS = 60 * 60 * 1000;
export const PREVIEW_FORMAT = IMAGE_FORMATS[PREVIEW_TYPE];

/** Where the bytes of a file (or its preview) are kept in the file storage. */
export function storageKey(tenantId: string, fileId: string, variant: Variant): string {
  return variant === 'original' ? `${tenantId}/${fileId}` : `${tenantId}/${fileId}.preview`;
}

function signed(target: DownloadTarget, expires: number): string {
  return [target.variant, target.tenantId, target.fileId, target.format, expires].join('|');
}

export function downloadUrl(links: LinkSigner, target: DownloadTarget, now: number): string {
  const expires = now + LINK_VALID_MS;
  const query = new URLSearchParams({ tenant: target.tenantId });
  if (target.variant === 'original') query.set('type', target.format);
  query.set('expires', String(expires));
  query.set('signature', links.signer.sign(PURPOSE, signed(target, expires)));
  const path = `/v0/public/files/${target.fileId}${target.variant === 'preview' ? '/preview' : ''}`;
  return `${links.publicUrl}${path}?${query}`;
}

/**
 * A page's image: a link that never expires, so that browsers and caches keep the bytes (a file's
 * bytes never change under its id). Signed for another purpose than download links, so that neither
 * passes for the other. It stops when the file is deleted: the route looks the file up.
 */
export type ImageTarget = Omit<DownloadTarget, 'variant'>;

const IMAGE_PURPOSE = 'file-image';

function signedImage(target: ImageTarget): string {
  return [target.tenantId, target.fileId, target.format].join('|');
}

export function imageUrl(links: LinkSigner, target: ImageTarget): string {
  const query = new URLSearchParams({
    tenant: target.tenantId,
    type: target.format,
    signature: links.signer.sign(IMAGE_PURPOSE, signedImage(target)),
  });
  return `${links.publicUrl}/v0/public/images/${target.fileId}?${query}`;
}

export function isImageLink(signer: Signer, target: ImageTarget, signature: string): boolean {
  return signer.verify(IMAGE_PURPOSE, signedImage(target), signature);
}

export type LinkCheck = 'valid' | 'expired' | 'forged';

/** Whether a link's signature covers exactly these values, and whether it is still in time. */
export function checkLink(
  signer: Signer,
  target: DownloadTarget,
  expires: number,
  signature: string,
  now: number,
): LinkCheck {
  if (!signer.verify(PURPOSE, signed(target, expires), signature)) return 'forged';
  return now < expires ? 'valid' : 'expired';
}
