import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import { Brand, BrandDeleted, BrandInput, BrandList, BrandListQuery, BrandParams } from './schema.ts';
import { getBrand, type LogoCheck, listAllBrands, putBrand, removeBrand } from './service.ts';

const tags = ['Brands'];
const BASE = '/v0/brands';

/** Brand profiles; `checkLogo` checks the asset a profile names as its logo. */
export async function brandRoutes(api: Api, { checkLogo }: { checkLogo: LogoCheck }): Promise<void> {
  api.put(
    `${BASE}/:brand_id`,
    {
      schema: {
        tags,
        operationId: 'putBrand',
        summary: 'Create or replace a brand profile',
        description:
          'The profile of the pages whose `brandId` is this id: their header, footer and colors, and the voice generation follows. The whole profile is replaced: a field left out is cleared. 201 when the profile is new, 200 when it replaced one. `logoAssetId` must be an active image asset of your tenant (400).',
        params: BrandParams,
        body: BrandInput,
        response: { 200: Brand, 201: Brand },
      },
    },
    async (request, reply) => {
      const { brand, created } = await putBrand(
        request.tenantDb,
        request.params.brand_id,
        request.body,
        checkLogo,
      );
      if (created) reply.code(201).header('Location', `${BASE}/${encodeURIComponent(brand.brandId)}`);
      return reply.send(brand);
    },
  );

  api.get(
    BASE,
    {
      schema: {
        tags,
        operationId: 'listBrands',
        summary: 'List brand profiles',
        description: 'Newest first.',
        querystring: BrandListQuery,
        response: { 200: BrandList },
      },
    },
    (request) => paginate(request, {}, (page) => listAllBrands(request.tenantDb, page)),
  );

  api.get(
    `${BASE}/:brand_id`,
    {
      schema: {
        tags,
        operationId: 'getBrand',
        summary: 'Get a brand profile',
        description: 'The brand profile by the id the client chose for it (PUT /v0/brands/{brand_id}).',
        params: BrandParams,
        response: { 200: Brand },
      },
    },
    (request) => getBrand(request.tenantDb, request.params.brand_id),
  );

  api.delete(
    `${BASE}/:brand_id`,
    {
      schema: {
        tags,
        operationId: 'deleteBrand',
        summary: 'Delete a brand profile',
        description: 'Pages keep their brandId; they are served without a profile from then on.',
        params: BrandParams,
        response: { 200: BrandDeleted },
      },
    },
    (request) => removeBrand(request.tenantDb, request.params.brand_id),
  );
}
