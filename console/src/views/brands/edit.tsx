import { unwrap } from '../../api.ts';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { type BrandDraft, BrandForm, bodyOf, draftOf, NEW_BRAND } from './form.tsx';

export function NewBrand() {
  const { client } = useSession();
  const create = useAction(async (draft: BrandDraft) => {
    const path = { params: { path: { brand_id: draft.brandId.trim() } } };
    const brand = await unwrap(client.PUT('/v0/brands/{brand_id}', { ...path, body: bodyOf(draft) }));
    navigate(`/brands/${brand.brandId}`, { replace: true });
  });
  return (
    <>
      <ViewHead title="New brand" trail={<Link href="/brands">Brands</Link>} />
      <BrandForm
        initial={NEW_BRAND}
        isNew
        submitLabel="Create the brand"
        failure={create.failure}
        pending={create.pending}
        onSubmit={create.run}
      />
    </>
  );
}

export function EditBrand({ brandId }: { brandId: string }) {
  const { client } = useSession();
  const path = { params: { path: { brand_id: brandId } } };
  const brand = useLoad(() => unwrap(client.GET('/v0/brands/{brand_id}', path)), [brandId]);
  const save = useAction(async (draft: BrandDraft) => {
    await unwrap(client.PUT('/v0/brands/{brand_id}', { ...path, body: bodyOf(draft) }));
    navigate(`/brands/${brandId}`);
  });
  return (
    <>
      <ViewHead
        title={brand.data ? `Edit ${brand.data.name}` : 'Edit brand'}
        trail={
          <>
            <Link href="/brands">Brands</Link> ›{' '}
            <Link href={`/brands/${brandId}`}>{brand.data?.name ?? brandId}</Link>
          </>
        }
      />
      <ProblemMessage failure={brand.failure} />
      {brand.data && (
        <BrandForm
          initial={draftOf(brand.data)}
          isNew={false}
          submitLabel="Save changes"
          failure={save.failure}
          pending={save.pending}
          onSubmit={save.run}
        />
      )}
    </>
  );
}
