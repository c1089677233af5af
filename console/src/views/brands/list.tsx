import type { Brand } from '@tailor/client';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { CreateLink, ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { Swatch } from './form.tsx';

/** Brand profiles, newest first: how the pages of each brand look and read. */
export function BrandList() {
  const { client } = useSession();
  return (
    <>
      <ViewHead title="Brands">
        <CreateLink href="/brands/new">New brand</CreateLink>
      </ViewHead>
      <p class="muted">
        A page names its brand by id. The brand's profile gives its pages their name, logo, colours and
        footer, and the voice generation writes in.
      </p>
      <PagedList<Brand>
        caption="Brands"
        deps={[]}
        load={(cursor) => unwrap(client.GET('/v0/brands', { params: { query: { cursor } } }))}
        rowKey={(brand) => brand.brandId}
        empty="No brand profile yet: pages are served without a brand's name, logo or colours."
        columns={[
          { label: 'Brand', cell: (brand) => <Link href={`/brands/${brand.brandId}`}>{brand.name}</Link> },
          { label: 'Brand id', cell: (brand) => <code>{brand.brandId}</code> },
          { label: 'Colours', cell: (brand) => <Colours brand={brand} /> },
          { label: 'Updated', cell: (brand) => <Time at={brand.updatedAt} /> },
        ]}
      />
    </>
  );
}

export function Colours({ brand }: { brand: Brand }) {
  const { primary, accent } = brand.colors;
  if (!primary && !accent) return <span class="muted">none</span>;
  return (
    <span class="colours">
      {primary && (
        <span>
          <Swatch colour={primary} /> primary {primary}
        </span>
      )}
      {accent && (
        <span>
          <Swatch colour={accent} /> accent {accent}
        </span>
      )}
    </span>
  );
}
