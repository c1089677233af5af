import { type Brand, paginate } from '@tailor/client';
import { type Loaded, useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';

/** Every brand profile of the tenant, read to the end (a tenant has a few): to name brands and offer them. */
export function useBrands(): Loaded<Brand[]> {
  const { client } = useSession();
  return useLoad(async () => {
    const brands: Brand[] = [];
    for await (const brand of paginate(client, '/v0/brands', { params: { query: { limit: 100 } } })) {
      brands.push(brand);
    }
    return brands;
  }, []);
}

/**
 * A brand by its name, linked to its profile. A brand id need not have a profile: then the id is
 * all there is to show, and it says so.
 */
export function BrandLabel({ brandId, brand }: { brandId: string; brand: Brand | undefined }) {
  if (brand) return <Link href={`/brands/${brand.brandId}`}>{brand.name}</Link>;
  return (
    <span>
      <code>{brandId}</code> <span class="muted">(no profile)</span>
    </span>
  );
}

/** The brand of `brandId` by its name (a page's brand); "none" for a page without one. */
export function BrandName({ brandId }: { brandId: string }) {
  const { client } = useSession();
  const profile = useLoad(
    async () =>
      brandId
        ? ((await client.GET('/v0/brands/{brand_id}', { params: { path: { brand_id: brandId } } })).data ??
          null)
        : null,
    [brandId],
  );
  if (!brandId) return <span class="muted">none</span>;
  if (profile.loading && !profile.data) return null;
  return <BrandLabel brandId={brandId} brand={profile.data ?? undefined} />;
}
