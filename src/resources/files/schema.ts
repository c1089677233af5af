import { type Static, Type } from 'typebox';
import { Count, IdParams, Nullable, Timestamp } from '../../http/schemas.ts';
import { IMAGE_FORMAT_NAMES, IMAGE_TYPES } from './images.ts';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;

const DownloadUrl = Type.String({
  format: 'uri',
  description: 'Absolute, signed, valid for 1 hour, needs no API key',
});

export const File = Type.Object(
  {
    fileId: Type.String({ pattern: '^file_[a-z0-9]{26}$' }),
    contentType: Type.Enum(IMAGE_TYPES, { description: 'As declared on upload, without parameters' }),
    size: Count,
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lowercase hex SHA-256 of the bytes' }),
    createdAt: Timestamp,
    deletedAt: Nullable(Timestamp, {
      description: 'When the file was given up (its last asset was purged); its bytes are then removed',
    }),
    downloadUrl: Nullable(DownloadUrl, { description: 'The bytes; null once the file is deleted' }),
    previewDownloadUrl: Nullable(DownloadUrl, {
      description:
        'A WebP preview of at most 512×512 pixels; null when none could be made or the file is deleted',
    }),
  },
  { title: 'File' },
);
export type File = Static<typeof File>;

export const FileParams = IdParams('file_id');

/** An upload's bytes: `maxLength` counts them (a binary string's characters are its bytes), so clients can check a file's size before sending it. */
export const UploadBody = Type.Unsafe<Buffer>({
  title: 'FileUpload',
  type: 'string',
  format: 'binary',
  maxLength: MAX_FILE_BYTES,
  description: "The file's bytes, at most 10 MiB",
});

/** The query of a signed download link (as the service makes it: a changed value voids the signature). */
const linkFields = {
  tenant: Type.String({ minLength: 1, description: 'The tenant id of the file' }),
  expires: Type.Integer({ minimum: 0, description: 'Unix epoch milliseconds' }),
  signature: Type.String({ minLength: 1, description: 'The signature over every other part of the link' }),
};
const LinkFormat = Type.Enum(IMAGE_FORMAT_NAMES, { description: 'The format of the bytes' });

export const PreviewDownloadQuery = Type.Object(linkFields);
/** The query of a page image's link: no expiry, the file's deletion ends it (download-links.ts). */
export const ImageLinkQuery = Type.Object({
  tenant: linkFields.tenant,
  type: LinkFormat,
  signature: linkFields.signature,
});
export const OriginalDownloadQuery = Type.Object({
  ...linkFields,
  type: LinkFormat,
});
