import { paginate } from '../../http/pagination.ts';
import { EmptyBody } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  Asset,
  AssetCreate,
  AssetList,
  AssetListQuery,
  AssetParams,
  TrashList,
  TrashQuery,
} from './schema.ts';
import {
  type AssetFiles,
  createAsset,
  getAsset,
  listAssetsInState,
  listTrashedAssets,
  restoreAsset,
  trashAsset,
} from './service.ts';

const tags = ['Assets'];

/** The asset endpoints; `files` answers for the files the assets are images of. */
export async function assetRoutes(api: Api, { files }: { files: AssetFiles }): Promise<void> {
  api.post(
    '/v0/assets',
    {
      config: { idempotencyKeyField: 'idempotencyKey' },
      schema: {
        tags,
        operationId: 'createAsset',
        summary: 'Create an asset',
        description:
          '`fileId` must be an image file of this tenant that is not deleted and `parentAssetId` an asset of this tenant that is not deleted (400). `idempotencyKey` works like the `Idempotency-Key` header: the same key with the same body replays the first response (`Idempotent-Replayed: true`), with another body it is 422.',
        body: AssetCreate,
        response: { 201: Asset },
      },
    },
    async (request, reply) => {
      const asset = await createAsset(request.tenantDb, files, request.body);
      return reply.code(201).header('Location', `/v0/assets/${asset.assetId}`).send(asset);
    },
  );

  api.get(
    '/v0/assets',
    {
      schema: {
        tags,
        operationId: 'listAssets',
        summary: 'List assets',
        description:
          'Assets in one lifecycle state (`active` by default), newest first. `query` matches name, purpose and tags (case-insensitive substring).',
        querystring: AssetListQuery,
        response: { 200: AssetList },
      },
    },
    (request) => {
      const { lifecycleState = 'active', assetType, query } = request.query;
      const filters = { lifecycleState, assetType, query: query || undefined };
      return paginate(request, filters, (page) =>
        listAssetsInState(request.tenantDb, files, lifecycleState, filters, page),
      );
    },
  );

  api.get(
    '/v0/assets/trash',
    {
      schema: {
        tags,
        operationId: 'listTrashedAssets',
        summary: 'List trashed assets',
        description:
          'Only trashed assets, most recently trashed first. `assetType` filters on `data.type`; `query` matches name, purpose and tags (case-insensitive substring). A trashed asset is deleted for good 30 days after it was trashed.',
        querystring: TrashQuery,
        response: { 200: TrashList },
      },
    },
    (request) => {
      const { assetType, query } = request.query;
      const filters = { assetType, query: query || undefined };
      return paginate(request, filters, (page) => listTrashedAssets(request.tenantDb, files, filters, page));
    },
  );

  api.get(
    '/v0/assets/:asset_id',
    {
      schema: {
        tags,
        operationId: 'getAsset',
        summary: 'Get an asset',
        description:
          "The asset in any lifecycle state, trashed ones included, with its file's signed download links.",
        params: AssetParams,
        response: { 200: Asset },
      },
    },
    (request) => getAsset(request.tenantDb, files, request.params.asset_id),
  );

  api.delete(
    '/v0/assets/:asset_id',
    {
      schema: {
        tags,
        operationId: 'trashAsset',
        summary: 'Move an asset to the trash',
        description:
          'lifecycleState becomes `trashed` and `trashedAt` is set; 30 days later the asset is deleted for good and its file bytes removed. Trashing a trashed asset returns it unchanged; a deleted asset is 409 `invalid_state`.',
        params: AssetParams,
        response: { 200: Asset },
      },
    },
    (request) => trashAsset(request.tenantDb, files, request.params.asset_id),
  );

  api.post(
    '/v0/assets/:asset_id/restore',
    {
      schema: {
        tags,
        operationId: 'restoreAsset',
        summary: 'Restore an asset from the trash',
        description:
          'lifecycleState becomes `active` and `trashedAt` null. Restoring an active asset returns it unchanged; a deleted asset is 409 `invalid_state`.',
        params: AssetParams,
        body: EmptyBody,
        response: { 200: Asset },
      },
    },
    (request) => restoreAsset(request.tenantDb, files, request.params.asset_id),
  );
}
