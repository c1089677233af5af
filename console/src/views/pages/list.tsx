import type { Page } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { StatusBadge, Time } from '../../components/format.tsx';
import { Field, TextInput } from '../../components/forms.tsx';
import { CreateLink, ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useDebounced } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';

const STATUSES = ['draft', 'published', 'archived'] as const;
type Status = (typeof STATUSES)[number];

/** Pages, newest first, searched by name and title as you type and filtered by status. */
export function PageList() {
  const { client } = useSession();
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState<Status | ''>('');
  const settledQuery = useDebounced(query);
  return (
    <>
      <ViewHead title="Pages">
        <CreateLink href="/pages/new">New page</CreateLink>
      </ViewHead>
      <search class="search">
        <Field label="Search by name or title" name="query">
          {(control) => <TextInput {...control} type="search" value={query} onValue={setQuery} />}
        </Field>
        <Field label="Status" name="status">
          {(control) => (
            <select
              {...control}
              value={status}
              onChange={(event) => setStatus((event.currentTarget as HTMLSelectElement).value as Status | '')}
            >
              <option value="">Any</option>
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          )}
        </Field>
      </search>
      <PagedList<Page>
        caption="Pages"
        deps={[settledQuery, status]}
        load={(cursor) =>
          unwrap(
            client.GET('/v0/pages', {
              params: { query: { cursor, query: settledQuery, ...(status ? { status } : {}) } },
            }),
          )
        }
        rowKey={(page) => page.pageId}
        empty={settledQuery || status ? 'No page matches.' : 'No pages yet.'}
        columns={[
          { label: 'Name', cell: (page) => <Link href={`/pages/${page.pageId}`}>{page.name}</Link> },
          { label: 'Status', cell: (page) => <StatusBadge status={page.status} /> },
          { label: 'Audiences', cell: (page) => page.audiencesCount },
          { label: 'Updated', cell: (page) => <Time at={page.updatedAt} /> },
        ]}
      />
    </>
  );
}
