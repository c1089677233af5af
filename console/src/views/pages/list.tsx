import type { Page } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { StatusBadge, Time } from '../../components/format.tsx';
import { type Choice, Field, Select, TextInput } from '../../components/forms.tsx';
import { CreateLink, ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useDebounced } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';

const STATUSES = ['draft', 'published', 'archived'] as const;
type Status = (typeof STATUSES)[number];
const STATUS_CHOICES: Choice<Status | ''>[] = [
  { value: '', label: 'Any' },
  ...STATUSES.map((value) => ({ value, label: value })),
];

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
          {(control) => <Select {...control} value={status} choices={STATUS_CHOICES} onValue={setStatus} />}
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
