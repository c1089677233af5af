import { type Static, Type } from 'typebox';
import { SAFE_URL_PATTERN } from '../shared/safe-url.ts';
import { optionalAll } from './schemas.ts';

/**
 * Shapes that pages and audiences share: the links a page may show, and its metadata, which a page
 * carries and an audience overrides field by field.
 */

/** Links a page shows must not run script: http(s), mailto and tel URLs, paths and fragments only. */
export const SAFE_URL = {
  maxLength: 2048,
  pattern: SAFE_URL_PATTERN,
  description:
    'A link such as https://acme.com/demo: an http(s), mailto: or tel: URL, a path starting with a single / (not //host or /\\host), a #fragment, or nothing',
  examples: ['https://acme.com/demo'],
};
export const SafeUrl = Type.String(SAFE_URL);
const Text = (maxLength: number) => Type.String({ maxLength });

export const ROBOTS = [
  'all',
  'none',
  'index',
  'noindex',
  'follow',
  'nofollow',
  'noarchive',
  'nosnippet',
  'noimageindex',
  'notranslate',
] as const;

const metadataText = {
  title: Text(255),
  description: Text(1024),
  keywords: Type.Array(Text(128), { maxItems: 50 }),
  author: Text(255),
  robots: Type.Array(Type.Enum(ROBOTS), { maxItems: 10, description: 'Robots directives' }),
  canonicalUrl: SafeUrl,
  ogTitle: Text(255),
  ogDescription: Text(1024),
  ogImageAlt: Text(255),
  ogSiteName: Text(255),
  ogUrl: SafeUrl,
  twitterTitle: Text(255),
  twitterDescription: Text(1024),
  twitterImageAlt: Text(255),
  twitterSite: Text(255),
  twitterCreator: Text(255),
  themeColor: Text(64),
};
const metadataImages = {
  ogImageUrl: SafeUrl,
  ogImageFileId: Text(64),
  twitterImageUrl: SafeUrl,
  twitterImageFileId: Text(64),
};

/** Page metadata as pages and audiences show it. */
export const PageMetadata = Type.Object(optionalAll({ ...metadataText, ...metadataImages }));
export type PageMetadata = Static<typeof PageMetadata>;

/** Page metadata as a page create or update takes it: the image fields are set through audiences. */
export const PageMetadataInput = Type.Object(optionalAll(metadataText), { additionalProperties: false });
/** Metadata as an audience overrides it, image fields included. */
export const PageMetadataOverride = Type.Object(optionalAll({ ...metadataText, ...metadataImages }), {
  additionalProperties: false,
});

/** Page metadata overlaid field by field with an audience's override; undefined when neither has any. */
export function overlayMetadata(
  page: PageMetadata | undefined,
  override: PageMetadata | undefined,
): PageMetadata | undefined {
  if (!page && !override) return undefined;
  return { ...page, ...override };
}
