import { type Static, Type } from 'typebox';
import {
  IdParams,
  Nullable,
  NullableTimestamp,
  PagedList,
  PageQuery,
  SearchQuery,
  Timestamp,
} from '../../http/schemas.ts';

export const ASSET_KINDS = ['image', 'logo', 'icon', 'video', 'custom-component'] as const;
export const LIFECYCLE_STATES = ['active', 'trashed', 'deleted'] as const;

const DownloadUrl = Nullable(Type.String({ format: 'uri' }), {
  description: 'Absolute, signed, valid for 1 hour, needs no API key; null once the asset is deleted',
});

export const Asset = Type.Object(
  {
    assetId: Type.String({ pattern: '^asset_[a-z0-9]{26}$' }),
    tenantId: Type.String(),
    name: Type.String(),
    purpose: Type.String(),
    tags: Type.Array(Type.String()),
    aiDescription: Nullable(Type.String()),
    parentAssetId: Nullable(Type.String()),
    hidden: Type.Boolean(),
    data: Type.Object({
      type: Type.String({ description: 'The asset kind; assets created through the API are `image`' }),
      fileId: Type.String(),
    }),
    lifecycleState: Type.Enum(LIFECYCLE_STATES, {
      description:
        'active → trashed (DELETE) → active (restore); 30 days after trashing an asset becomes deleted for good',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    trashedAt: NullableTimestamp,
    deletedAt: NullableTimestamp,
    downloadUrl: DownloadUrl,
    previewDownloadUrl: Nullable(Type.String({ format: 'uri' }), {
      description:
        'A signed link to a WebP preview of at most 512×512; null when none could be made or the asset is deleted',
    }),
  },
  { title: 'Asset' },
);
export type Asset = Static<typeof Asset>;

export const AssetCreate = Type.Object(
  {
    assetType: Type.Enum(['image'], { description: 'Only `image` may be created' }),
    name: Type.String(),
    purpose: Type.String({ default: '' }),
    fileId: Type.String({ description: 'An image file of this tenant (POST /v0/files)' }),
    parentAssetId: Type.Optional(Type.String({ description: 'An asset of this tenant that is not deleted' })),
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Makes retries safe, like the Idempotency-Key header (kept 24 hours)',
      }),
    ),
    hidden: Type.Optional(Type.Boolean({ default: false })),
  },
  {
    title: 'AssetCreate',
    examples: [
      {
        assetType: 'image',
        name: 'Northwind Outfitters logo',
        purpose: 'Customer logo for the social proof strip',
        fileId: 'file_01jdq2zh8c5n7r3t9v1w4x6y8a',
        hidden: false,
      },
    ],
    additionalProperties: false,
  },
);
export type AssetCreate = Static<typeof AssetCreate>;

const AssetKind = Type.Enum(ASSET_KINDS, { description: 'Only assets whose `data.type` is this' });

export const TrashQuery = Type.Object({
  ...PageQuery,
  assetType: Type.Optional(AssetKind),
  query: SearchQuery,
});

export const AssetListQuery = Type.Object({
  ...PageQuery,
  lifecycleState: Type.Optional(
    Type.Enum(LIFECYCLE_STATES, {
      default: 'active',
      description: 'Which assets to list; active by default',
    }),
  ),
  assetType: Type.Optional(AssetKind),
  query: SearchQuery,
});

export const AssetList = PagedList(Asset, { title: 'AssetList' });
export const TrashList = PagedList(Asset, { title: 'AssetTrashList', nextCursorMinLength: 1 });
export const AssetParams = IdParams('asset_id');
