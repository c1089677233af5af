import { unwrap } from '../../api.ts';
import { Time, WebLink } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { leadsHref } from './list.tsx';
import { NamedLink, useNames } from './names.tsx';
import { Outcome } from './outcome.tsx';
import { Served } from './served.tsx';

/** The page link a lead came through: its path, opened at its public address while it has one. */
function PageLinkOf({ pageLinkId }: { pageLinkId: string }) {
  const { client } = useSession();
  const link = useLoad(
    () =>
      unwrap(client.GET('/v0/page_links/{page_link_id}', { params: { path: { page_link_id: pageLinkId } } })),
    [pageLinkId],
  );
  if (link.loading && !link.data) return <span class="muted">Loading…</span>;
  if (!link.data) return <span class="muted">not found</span>;
  if (link.data.url === null) return <span class="muted">{link.data.path} (deleted)</span>;
  return <WebLink url={link.data.url}>{link.data.path}</WebLink>;
}

/** One form submission: what was sent, where from, and who enrichment found. */
export function LeadDetail({ formSubmissionId }: { formSubmissionId: string }) {
  const { client } = useSession();
  const names = useNames();
  const lead = useLoad(
    () =>
      unwrap(
        client.GET('/v0/form_submissions/{form_submission_id}', {
          params: { path: { form_submission_id: formSubmissionId } },
        }),
      ),
    [formSubmissionId],
  );
  const data = lead.data;
  const fields = Object.entries(data?.fields ?? {});
  return (
    <>
      <ViewHead
        title={data ? `Lead: ${data.email || 'no email given'}` : 'Lead'}
        trail={<Link href="/leads">Leads</Link>}
      />
      <ProblemMessage failure={lead.failure} />
      {lead.loading && !data && <p class="muted">Loading…</p>}
      {data && (
        <>
          <div class="card">
            <dl class="facts">
              <div>
                <dt>Outcome</dt>
                <dd>
                  <Outcome lead={data} names={names} />
                </dd>
              </div>
              <div>
                <dt>Sent</dt>
                <dd>
                  <Time at={data.submittedAt} />
                </dd>
              </div>
              <div>
                <dt>Enrichment ended</dt>
                <dd>
                  <Time at={data.enrichment.finishedAt} />
                </dd>
              </div>
              <div>
                <dt>Page</dt>
                <dd>
                  <NamedLink
                    id={data.pageId}
                    name={() => names.page(data.pageId)}
                    href={`/pages/${data.pageId}`}
                    missing="page not found"
                  />{' '}
                  · <Link href={leadsHref({ pageId: data.pageId })}>its leads</Link>
                </dd>
              </div>
              <div>
                <dt>Audience</dt>
                <dd>
                  <NamedLink
                    id={data.audienceId}
                    name={() => names.audience(data.pageId, data.audienceId)}
                    href={`/pages/${data.pageId}/audiences/${data.audienceId}`}
                    missing="audience not found"
                  />
                </dd>
              </div>
              <div>
                <dt>The visitor saw</dt>
                <dd>
                  <Served lead={data} names={names} />
                </dd>
              </div>
              <div>
                <dt>Page link</dt>
                <dd>
                  <PageLinkOf pageLinkId={data.pageLinkId} />
                </dd>
              </div>
            </dl>
          </div>
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">What was sent</h2>
            <div class="card">
              <dl class="facts lead-fields">
                <div>
                  <dt>email</dt>
                  <dd>{data.email || <span class="muted">none</span>}</dd>
                </div>
                {fields.map(([name, value]) => (
                  <div key={name}>
                    <dt>{name}</dt>
                    <dd>{value || <span class="muted">left empty</span>}</dd>
                  </div>
                ))}
              </dl>
            </div>
          </section>
        </>
      )}
    </>
  );
}
