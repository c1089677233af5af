import { unwrap } from '../../api.ts';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { bodyOf, draftOf, NEW_PAGE, type PageDraft, PageForm } from './form.tsx';

export function NewPage() {
  const { client } = useSession();
  const create = useAction(async (draft: PageDraft) => {
    const page = await unwrap(client.POST('/v0/pages', { body: bodyOf(draft) }));
    navigate(`/pages/${page.pageId}`, { replace: true });
  });
  return (
    <>
      <ViewHead title="New page" trail={<Link href="/pages">Pages</Link>} />
      <PageForm
        initial={NEW_PAGE}
        operation="createPage"
        submitLabel="Create the page"
        failure={create.failure}
        pending={create.pending}
        onSubmit={create.run}
      />
    </>
  );
}

export function EditPage({ pageId }: { pageId: string }) {
  const { client } = useSession();
  const page = useLoad(
    () => unwrap(client.GET('/v0/pages/{page_id}', { params: { path: { page_id: pageId } } })),
    [pageId],
  );
  const save = useAction(async (draft: PageDraft) => {
    await unwrap(
      client.PATCH('/v0/pages/{page_id}', {
        params: { path: { page_id: pageId } },
        body: bodyOf(draft, page.data),
      }),
    );
    navigate(`/pages/${pageId}`);
  });
  return (
    <>
      <ViewHead
        title={page.data ? `Edit ${page.data.name}` : 'Edit page'}
        trail={
          <>
            <Link href="/pages">Pages</Link> ›{' '}
            <Link href={`/pages/${pageId}`}>{page.data?.name ?? pageId}</Link>
          </>
        }
      />
      <ProblemMessage failure={page.failure} />
      {page.data && (
        <PageForm
          initial={draftOf(page.data)}
          operation="updatePage"
          submitLabel="Save changes"
          failure={save.failure}
          pending={save.pending}
          onSubmit={save.run}
        />
      )}
    </>
  );
}
