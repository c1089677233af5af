import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Field, Select, TextInput } from '../../components/forms.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useDebounced, useLoad } from '../../hooks.ts';
import { useSession, Writable } from '../../session.tsx';
import { LinkCreate, LinkList } from './links.tsx';

/** Picks the audience a new link serves: a page by search, then one of its audiences. */
function AudienceChooser({ onChosen }: { onChosen: (audienceId: string) => void }) {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const [pageId, setPageId] = useState('');
  const [audienceId, setAudienceId] = useState('');
  const choose = (chosen: string) => {
    setAudienceId(chosen);
    onChosen(chosen);
  };
  const settled = useDebounced(query);
  const pages = useLoad(
    () => unwrap(client.GET('/v0/pages/search', { params: { query: { query: settled, limit: 20 } } })),
    [settled],
  );
  const audiences = useLoad(
    async () =>
      pageId
        ? unwrap(
            client.GET('/v0/pages/{page_id}/audiences', {
              params: { path: { page_id: pageId }, query: { limit: 100 } },
            }),
          )
        : undefined,
    [pageId],
  );
  const live = audiences.data?.items.filter((audience) => audience.status !== 'archived') ?? [];
  return (
    <>
      <ProblemMessage failure={pages.failure ?? audiences.failure} />
      <div class="row">
        <Field label="Find the page" name="pageSearch">
          {(control) => <TextInput {...control} type="search" value={query} onValue={setQuery} />}
        </Field>
        <Field label="Page" name="pageId">
          {(control) => (
            <Select
              {...control}
              value={pageId}
              choices={[
                { value: '', label: 'Choose a page' },
                ...(pages.data?.items ?? []).map((page) => ({
                  value: page.pageId,
                  label: `${page.name} (${page.audiencesCount} audiences)`,
                })),
              ]}
              onValue={(chosen) => {
                setPageId(chosen);
                choose('');
              }}
            />
          )}
        </Field>
        <Field label="Audience" name="audienceId">
          {(control) => (
            <Select
              {...control}
              disabled={!pageId}
              value={audienceId}
              choices={[
                { value: '', label: 'Choose an audience' },
                ...live.map((audience) => ({ value: audience.audienceId, label: audience.effectiveName })),
              ]}
              onValue={choose}
            />
          )}
        </Field>
      </div>
    </>
  );
}

/** Every page link of the tenant, and a form to make one for any audience. */
export function PageLinks() {
  const [audienceId, setAudienceId] = useState('');
  const [made, setMade] = useState(0);
  return (
    <>
      <ViewHead title="Page links" />
      <p class="muted">
        A page link serves an audience's published version to visitors at its public address. Open an audience
        to see its own links.
      </p>
      <Writable>
        <section class="card" aria-labelledby="new-link-heading">
          <h2 id="new-link-heading">New page link</h2>
          <AudienceChooser onChosen={setAudienceId} />
          {audienceId && (
            <LinkCreate audienceId={audienceId} onCreated={() => setMade((count) => count + 1)} />
          )}
        </section>
      </Writable>
      <LinkList version={made} />
    </>
  );
}
