import type { Audience, Page } from '@tailor/client';
import { unwrap } from '../../api.ts';
import { StatusBadge, Time } from '../../components/format.tsx';
import { CreateLink, ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { BrandName } from '../brands/names.tsx';
import { LiveLink } from '../page-links/live.tsx';
import { PageTabs } from './tabs.tsx';

/** States a version passes through on its way to draft: lists showing one refresh themselves. */
export const GENERATING = new Set(['queued', 'processing', 'pending']);

type PageAction = 'publish' | 'archive' | 'restore';

/** The buttons the page's state allows: publish a draft, archive a live page, restore an archived or deleted one. */
function actionsFor(page: Page): PageAction[] {
  if (page.deletedAt || page.status === 'archived') return ['restore'];
  return page.status === 'draft' ? ['publish', 'archive'] : ['archive'];
}

const ACTION_LABELS: Record<PageAction, string> = {
  publish: 'Publish',
  archive: 'Archive',
  restore: 'Restore',
};

export function PageDetail({ pageId }: { pageId: string }) {
  const { client } = useSession();
  const path = { params: { path: { page_id: pageId } } };
  const page = useLoad(() => unwrap(client.GET('/v0/pages/{page_id}', path)), [pageId]);
  const act = useAction(async (action: PageAction) => {
    page.set(await unwrap(client.POST(`/v0/pages/{page_id}/${action}`, path)));
  });

  return (
    <>
      <ViewHead title={page.data?.name ?? 'Page'} trail={<Link href="/pages">Pages</Link>}>
        {page.data && (
          <Writable>
            <Link class="button" href={`/pages/${pageId}/edit`}>
              Edit
            </Link>
            {actionsFor(page.data).map((action) => (
              <button
                key={action}
                type="button"
                class={action === 'publish' ? 'primary' : undefined}
                disabled={act.pending}
                onClick={() => act.run(action)}
              >
                {ACTION_LABELS[action]}
              </button>
            ))}
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={page.failure ?? act.failure} />
      {page.data && <PageFacts page={page.data} />}
      <PageTabs pageId={pageId} current="" />
      <AudienceList pageId={pageId} page={page.data} />
    </>
  );
}

function PageFacts({ page }: { page: Page }) {
  return (
    <div class="card">
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={page.deletedAt ? 'deleted' : page.status} />
          </dd>
        </div>
        <div>
          <dt>Title</dt>
          <dd>{page.title}</dd>
        </div>
        <div>
          <dt>Brand</dt>
          <dd>
            <BrandName brandId={page.brandId} />
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{page.pageType}</dd>
        </div>
        <div>
          <dt>Actions</dt>
          <dd>
            {page.actions.map((action) => action.buttonTitle).join(', ') || <span class="muted">none</span>}
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time at={page.updatedAt} />
          </dd>
        </div>
        {page.archivedAt && (
          <div>
            <dt>Archived</dt>
            <dd>
              <Time at={page.archivedAt} />
            </dd>
          </div>
        )}
      </dl>
    </div>
  );
}

function AudienceList({ pageId, page }: { pageId: string; page: Page | undefined }) {
  const { client } = useSession();
  const canCreate = page?.status !== 'archived' && !page?.deletedAt;
  return (
    <section aria-labelledby="audiences-heading">
      <div class="view-head">
        <h2 id="audiences-heading">Audiences</h2>
        {canCreate && <CreateLink href={`/pages/${pageId}/audiences/new`}>New audience</CreateLink>}
      </div>
      <PagedList<Audience>
        caption="Audiences of this page"
        deps={[pageId]}
        load={(cursor) =>
          unwrap(
            client.GET('/v0/pages/{page_id}/audiences', {
              params: { path: { page_id: pageId }, query: { cursor } },
            }),
          )
        }
        live={(audiences) => audiences.some((audience) => GENERATING.has(audience.status))}
        rowKey={(audience) => audience.audienceId}
        empty="No audience yet: make one to personalize this page for a person or a company."
        columns={[
          {
            label: 'Audience',
            cell: (audience) => (
              <Link href={`/pages/${pageId}/audiences/${audience.audienceId}`}>{audience.effectiveName}</Link>
            ),
          },
          { label: 'Latest version', cell: (audience) => <StatusBadge status={audience.status} /> },
          { label: 'Visitors see', cell: (audience) => `version ${audience.publishedVersion.versionNumber}` },
          { label: 'Holdout', cell: (audience) => `${audience.holdoutPercent} %` },
          {
            label: 'Live page',
            cell: (audience) => page && <LiveLink page={page} audience={audience} explain />,
          },
          { label: 'Created', cell: (audience) => <Time at={audience.createdAt} /> },
        ]}
      />
    </section>
  );
}
