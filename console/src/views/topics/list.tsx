import type { Brand, Topic } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { Field, TextInput } from '../../components/forms.tsx';
import { CreateLink, ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useDebounced } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { BrandLabel, useBrands } from '../brands/names.tsx';

/** The brands whose pages draw on a topic, by name; or every brand. */
export function TopicBrands({ topic, brands }: { topic: Topic; brands: Brand[] | undefined }) {
  if (topic.brandIds.length === 0) return <span>Shared by every brand</span>;
  if (!brands) return null;
  return (
    <ul class="brand-list">
      {topic.brandIds.map((brandId) => (
        <li key={brandId}>
          <BrandLabel brandId={brandId} brand={brands.find((brand) => brand.brandId === brandId)} />
        </li>
      ))}
    </ul>
  );
}

/** Topics, in the order generation weighs them, searched in their titles, purposes and entries. */
export function TopicList() {
  const { client } = useSession();
  const brands = useBrands();
  const [query, setQuery] = useState('');
  const settled = useDebounced(query.trim());
  return (
    <>
      <ViewHead title="Topics">
        <CreateLink href="/topics/new">New topic</CreateLink>
      </ViewHead>
      <p class="muted">
        The knowledge generation draws on when it writes a page: each topic holds short entries, and is shared
        by every brand or kept to some.
      </p>
      <search class="search">
        <Field label="Search topics" name="query" hint="Any part of a title, a purpose or an entry">
          {(control) => (
            <TextInput {...control} type="search" autocomplete="off" value={query} onValue={setQuery} />
          )}
        </Field>
      </search>
      <PagedList<Topic>
        caption="Topics"
        deps={[settled]}
        load={(cursor) =>
          unwrap(client.GET('/v0/topics/search', { params: { query: { cursor, query: settled } } }))
        }
        rowKey={(topic) => topic.topicId}
        empty={settled ? 'No topic matches.' : 'No topic yet: make one to give generation something to say.'}
        columns={[
          {
            label: 'Topic',
            cell: (topic) => (
              <>
                <Link href={`/topics/${topic.topicId}`}>{topic.title}</Link>
                {topic.isDefault && (
                  <>
                    {' '}
                    <span class="badge default">default</span>
                  </>
                )}
              </>
            ),
          },
          { label: 'Brands', cell: (topic) => <TopicBrands topic={topic} brands={brands.data} /> },
          { label: 'Entries', cell: (topic) => topic.entries.length },
          { label: 'Updated', cell: (topic) => <Time at={topic.updatedAt} /> },
        ]}
      />
    </>
  );
}
