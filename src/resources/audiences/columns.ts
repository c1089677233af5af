import { json } from '../../db/fields.ts';
import type { PageMetadata } from '../../http/page-metadata.ts';
import type { VersionContent } from './schema.ts';

/*
 * The JSON text columns of audiences, each holding values of one type. Writing goes through
 * `store`, which takes only that type, so reading (`present`) may trust what it parses.
 */

/** `audience_versions.content`. */
export const contentColumn = json<VersionContent>();
/** `audiences.metadata_override`. */
export const metadataOverrideColumn = json<PageMetadata>();
