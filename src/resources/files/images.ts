/** The media types a file may have, and the format name sharp reports for each. */
export const IMAGE_FORMATS = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
} as const;

export type ImageType = keyof typeof IMAGE_FORMATS;
export type ImageFormat = (typeof IMAGE_FORMATS)[ImageType];

export const IMAGE_TYPES = Object.keys(IMAGE_FORMATS) as ImageType[];
export const IMAGE_FORMAT_NAMES = Object.values(IMAGE_FORMATS);
/** The media type of each format name. */
export const CONTENT_TYPES = Object.fromEntries(
  Object.entries(IMAGE_FORMATS).map(([type, format]) => [format, type]),
) as Record<ImageFormat, ImageType>;
export const PREVIEW_TYPE = 'image/webp';

export function isImageType(value: string): value is ImageType {
  return Object.hasOwn(IMAGE_FORMATS, value);
}

/** Bytes that crossed the image pool's channel (a plain Uint8Array) as a Buffer, without a copy. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
