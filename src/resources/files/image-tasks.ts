/**
 * The work of the image pool (image-pool.ts), run in its processes and never in the server's:
 * decoding an image, or validating a 10 MiB SVG, takes CPU time that no request may wait behind,
 * and a native decoder stuck in a hostile file can only be stopped by ending its process.
 * Bytes arrive as Uint8Array (the pool's structured-clone channel) and previews leave as one.
 */
import { XMLValidator } from 'fast-xml-parser';
import sharp from 'sharp';
import { asBuffer, IMAGE_FORMATS, type ImageFormat, type ImageType } from './images.ts';

const PREVIEW_EDGE = 512;
/** Previews of larger images are not attempted: decoding them could take gigabytes. */
const PREVIEW_MAX_PIXELS = 40_000_000;

// Every upload is different, so libvips' operation cache would only hold memory; one libvips
// thread per process keeps the pool's CPU use to one core per process.
sharp.cache(false);
sharp.concurrency(1);

export interface CheckTask {
  type: ImageType;
  bytes: Uint8Array;
}

export interface PreviewTask {
  bytes: Uint8Array;
}

function startsWith(bytes: Buffer, signature: string, offset = 0): boolean {
  return bytes.subarray(offset, offset + signature.length).toString('latin1') === signature;
}

const MAGIC: Record<Exclude<ImageFormat, 'svg'>, (bytes: Buffer) => boolean> = {
  png: (bytes) => startsWith(bytes, '\x89PNG\r\n\x1a\n'),
  jpeg: (bytes) => startsWith(bytes, '\xff\xd8\xff'),
  gif: (bytes) => startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a'),
  webp: (bytes) => startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8),
};

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
const SPACE = /\s*/y;
const ATTRIBUTE = /\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const TAG_END = /\s*\/?>/y;

/** Where `pattern` (sticky) matches at `from`, the match; else null. */
function matchAt(pattern: RegExp, text: string, from: number): RegExpExecArray | null {
  pattern.lastIndex = from;
  return pattern.exec(text);
}

/** Index after the prolog item (declaration, processing instruction, comment, doctype) at `i`, or -1. */
function skipPrologItem(text: string, i: number): number {
  const closing = (marker: string, from: number) => {
    const at = text.indexOf(marker, from);
    return at < 0 ? -1 : at + marker.length;
  };
  if (text.startsWith('<?', i)) return closing('?>', i + 2);
  if (text.startsWith('<!--', i)) return closing('-->', i + 4);
  if (!text.startsWith('<!DOCTYPE', i)) return -1;
  const bracket = text.indexOf('[', i);
  const end = text.indexOf('>', i);
  if (bracket < 0 || (end >= 0 && end < bracket)) return end < 0 ? -1 : end + 1;
  const subsetEnd = text.indexOf(']', bracket);
  return subsetEnd < 0 ? -1 : closing('>', subsetEnd);
}

/**
 * Whether the text is an XML document whose root is an `<svg>` element with well-formed attributes
 * in the SVG namespace: what a browser needs to treat it as SVG. A linear scan, not a regular
 * expression over the whole document, so that no upload can make it backtrack.
 */
function hasSvgRoot(text: string): boolean {
  let i = 0;
  for (;;) {
    i += matchAt(SPACE, text, i)?.[0].length ?? 0;
    if (!text.startsWith('<?', i) && !text.startsWith('<!', i)) break;
    i = skipPrologItem(text, i);
    if (i < 0) return false;
  }
  if (!text.startsWith('<svg', i)) return false;
  i += '<svg'.length;
  const attributes = new Map<string, string>();
  for (let attribute = matchAt(ATTRIBUTE, text, i); attribute; attribute = matchAt(ATTRIBUTE, text, i)) {
    attributes.set(attribute[1] ?? '', attribute[2] ?? attribute[3] ?? '');
    i += attribute[0].length;
  }
  return matchAt(TAG_END, text, i) !== null && attributes.get('xmlns') === SVG_NAMESPACE;
}

/**
 * Any well-formed XML document with an `<svg>` root in the SVG namespace, whatever it holds
 * (`<image>`, `<foreignObject>`, script): what it could do is stopped where it is served, by the
 * sandbox Content-Security-Policy on every download and by rasterizing it for previews.
 */
function isSvg(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  return hasSvgRoot(text) && XMLValidator.validate(text) === true;
}

/**
 * True when the bytes are an image of the declared type: for SVG a well-formed document (see
 * isSvg); for the others the format's magic bytes and a header that the decoder reads as that format.
 */
/** Nothing: run untimed before a task, so that starting the process is not counted in its time. */
export function ready(): boolean {
  return true;
}

export async function check({ type, bytes }: CheckTask): Promise<boolean> {
  const buffer = asBuffer(bytes);
  const format = IMAGE_FORMATS[type];
  if (format === 'svg') return isSvg(buffer);
  if (!MAGIC[format](buffer)) return false;
  try {
    // Only the header is read here, so the pixel limit that guards decoding is not needed.
    const metadata = await sharp(buffer, { limitInputPixels: false }).metadata();
    return metadata.format === format;
  } catch {
    return false;
  }
}

/**
 * A WebP of at most 512×512 (never enlarged, EXIF orientation applied, first frame of an
 * animation, SVG rasterized, so no script survives), or undefined when the image cannot be
 * decoded within the pixel limit. The time limit is the pool's: it ends the process.
 */
export async function preview({ bytes }: PreviewTask): Promise<Uint8Array | undefined> {
  try {
    return await sharp(asBuffer(bytes), { limitInputPixels: PREVIEW_MAX_PIXELS })
      .rotate()
      .resize(PREVIEW_EDGE, PREVIEW_EDGE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
  } catch {
    return undefined;
  }
}
