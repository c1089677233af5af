import type { Brand } from '@tailor/client';
import { unwrap } from '../../api.ts';
import { ConfirmButton } from '../../components/confirm.tsx';
import { Time, WebLink } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { Colours } from './list.tsx';
import { LogoImage } from './logo.tsx';

export function BrandDetail({ brandId }: { brandId: string }) {
  const { client } = useSession();
  const path = { params: { path: { brand_id: brandId } } };
  const brand = useLoad(() => unwrap(client.GET('/v0/brands/{brand_id}', path)), [brandId]);
  const remove = useAction(async () => {
    await unwrap(client.DELETE('/v0/brands/{brand_id}', path));
    navigate('/brands', { replace: true });
  });
  return (
    <>
      <ViewHead title={brand.data?.name ?? 'Brand'} trail={<Link href="/brands">Brands</Link>}>
        {brand.data && (
          <Writable>
            <Link class="button" href={`/brands/${brandId}/edit`}>
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              question="Delete this profile? Its pages keep their brand id and lose its look."
              confirm="Yes, delete"
              pending={remove.pending}
              onConfirm={remove.run}
            />
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={brand.failure ?? remove.failure} />
      {brand.data && <BrandFacts brand={brand.data} />}
    </>
  );
}

function BrandFacts({ brand }: { brand: Brand }) {
  const none = <span class="muted">none</span>;
  return (
    <div class="card">
      {brand.logoAssetId && (
        <div class="logo-row">
          <LogoImage assetId={brand.logoAssetId} alt={`The logo of ${brand.name}`} />
        </div>
      )}
      <dl class="facts">
        <div>
          <dt>Brand id</dt>
          <dd>
            <code>{brand.brandId}</code>
          </dd>
        </div>
        <div>
          <dt>Website</dt>
          <dd>{brand.website ? <WebLink url={brand.website}>{brand.website}</WebLink> : none}</dd>
        </div>
        <div>
          <dt>Colours</dt>
          <dd>
            <Colours brand={brand} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time at={brand.updatedAt} />
          </dd>
        </div>
      </dl>
      <dl class="facts wide">
        <div>
          <dt>Voice</dt>
          <dd class="log-text">{brand.voice ?? none}</dd>
        </div>
        <div>
          <dt>Footer text</dt>
          <dd class="log-text">{brand.footerText ?? none}</dd>
        </div>
      </dl>
    </div>
  );
}
