import type { PageLink } from '@tailor/client';
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { type AudienceDirectory, useAudienceDirectory } from '../../audience-directory.ts';
import { CopyField } from '../../components/copy.tsx';
import { Time } from '../../components/format.tsx';
import { Field, outcomeOf, Submit, SubmitForm, TextInput } from '../../components/forms.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';

interface LinkListProps {
  /** Only the links to this audience; every link of the tenant when absent. */
  audienceId?: string;
  /** Changes when a link was made, to list it. */
  version: number;
  /** A link was deleted. */
  onRemoved?: () => void;
}

/** The page and audience a link serves, by their names, found among the tenant's audiences. */
function LinkTarget({ directory, audienceId }: { directory: AudienceDirectory; audienceId: string }) {
  useEffect(() => directory.seek(audienceId), [directory, audienceId]);
  const target = directory.found.get(audienceId);
  if (target) {
    const { page, audience } = target;
    return (
      <span>
        <Link href={`/pages/${page.pageId}`}>{page.name}</Link>
        <span aria-hidden="true"> › </span>
        <span class="visually-hidden">, for </span>
        <Link href={`/pages/${page.pageId}/audiences/${audience.audienceId}`}>{audience.effectiveName}</Link>
      </span>
    );
  }
  if (directory.reading || (directory.rounds === 0 && !directory.failure))
    return <span class="muted">Loading…</span>;
  if (directory.more)
    return <span class="muted">not among the {directory.audiencesRead} newest audiences</span>;
  return <span class="muted">not found: its page was deleted</span>;
}

/** Page links, newest first, each with its public URL to copy; deleted ones say so. */
export function LinkList({ audienceId, version, onRemoved }: LinkListProps) {
  const session = useSession();
  const [removed, setRemoved] = useState(0);
  // Every link of the tenant names its page and audience; the links of one audience need not.
  const directory = useAudienceDirectory([version]);
  const remove = useAction(async (link: PageLink) => {
    await unwrap(
      session.client.DELETE('/v0/page_links/{page_link_id}', {
        params: { path: { page_link_id: link.pageLinkId } },
      }),
    );
    setRemoved((count) => count + 1);
    onRemoved?.();
  });
  return (
    <>
      <ProblemMessage failure={remove.failure ?? (audienceId ? null : directory.failure)} />
      <PagedList<PageLink>
        caption="Page links"
        deps={[audienceId, version, removed]}
        load={(cursor) =>
          unwrap(
            session.client.GET('/v0/page_links', {
              params: { query: { cursor, ...(audienceId ? { audienceId } : {}) } },
            }),
          )
        }
        rowKey={(link) => link.pageLinkId}
        empty="No page link yet: make one to show this audience's page to visitors."
        columns={[
          {
            label: 'Public address',
            cell: (link) =>
              link.url === null ? (
                <span class="muted">{link.path} (deleted)</span>
              ) : (
                <>
                  <strong>{link.path}</strong>
                  <CopyField label={`Public address of ${link.path}`} value={link.url} />
                </>
              ),
          },
          ...(audienceId
            ? []
            : [
                {
                  label: 'Page and audience',
                  cell: (link: PageLink) => (
                    <LinkTarget directory={directory} audienceId={link.target.audienceId} />
                  ),
                },
              ]),
          { label: 'Created', cell: (link) => <Time at={link.createdAt} /> },
          {
            label: 'Actions',
            cell: (link) => (
              <div class="actions">
                {link.url !== null && (
                  <a href={link.url} target="_blank" rel="noopener noreferrer">
                    Open
                  </a>
                )}
                {!link.deletedAt && (
                  <Writable>
                    <button type="button" disabled={remove.pending} onClick={() => remove.run(link)}>
                      Delete
                    </button>
                  </Writable>
                )}
              </div>
            ),
          },
        ]}
      />
      {!audienceId && <ReadOlderPages directory={directory} />}
    </>
  );
}

/** When some audiences were not among the pages read on their own, reads on at the user's request. */
function ReadOlderPages({ directory }: { directory: AudienceDirectory }) {
  if (directory.missing === 0 || !directory.more || directory.reading) return null;
  return (
    <p>
      <button type="button" onClick={() => void directory.readMore()}>
        Look through older audiences
      </button>
    </p>
  );
}

/** Makes a page link to `audienceId` at a path the user picks. */
export function LinkCreate({ audienceId, onCreated }: { audienceId: string; onCreated: () => void }) {
  const { client } = useSession();
  const [path, setPath] = useState('/');
  const create = useAction(async () => {
    await unwrap(
      client.POST('/v0/page_links', { body: { path, target: { targetType: 'audience', audienceId } } }),
    );
    setPath('/');
    onCreated();
  });
  return (
    <SubmitForm
      class="search"
      onSubmit={() => void create.run()}
      {...outcomeOf(create, 'Link created.')}
      operation="createPageLink"
    >
      <Field label="Link path" name="path">
        {(control) => <TextInput {...control} required spellcheck={false} value={path} onValue={setPath} />}
      </Field>
      <div class="actions">
        <Submit label="Create link" pendingLabel="Creating…" />
      </div>
    </SubmitForm>
  );
}
