import type { PageMetadata } from '../../http/page-metadata.ts';
import type { VersionContent } from './schema.ts';

/**
 * A JSON text column holding values of one type. Writing goes through `encode`, which takes only
 * that type, so reading may trust what it parses: the one place a parsed column is given its type.
 */
export interface JsonColumn<T> {
  encode(value: T): string;
  decode(text: string): T;
}

function jsonColumn<T>(): JsonColumn<T> {
  return { encode: (value) => JSON.stringify(value), decode: (text) => JSON.parse(text) as T };
}

/** `audience_versions.content`. */
export const contentColumn = jsonColumn<VersionContent>();
/** `audiences.metadata_override`. */
export const metadataOverrideColumn = jsonColumn<PageMetadata>();
