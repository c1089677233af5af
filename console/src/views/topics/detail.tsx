import type { Brand, Topic } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Time } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useLoad } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { useBrands } from '../brands/names.tsx';
import { EntryCard, EntryForm } from './entry.tsx';
import { TopicBrands } from './list.tsx';

/** A topic holds at most this many entries (docs/topics.md): the API refuses more. */
const ENTRIES_PER_TOPIC = 100;

export function TopicDetail({ topicId }: { topicId: string }) {
  const { client } = useSession();
  const topic = useLoad(
    () => unwrap(client.GET('/v0/topics/{topic_id}', { params: { path: { topic_id: topicId } } })),
    [topicId],
  );
  const brands = useBrands();
  return (
    <>
      <ViewHead title={topic.data?.title ?? 'Topic'} trail={<Link href="/topics">Topics</Link>}>
        {topic.data && (
          <Writable>
            <Link class="button" href={`/topics/${topicId}/edit`}>
              Edit
            </Link>
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={topic.failure} />
      {topic.data && <TopicFacts topic={topic.data} brands={brands.data} />}
      {topic.data && <Entries topic={topic.data} onChanged={topic.reload} />}
    </>
  );
}

function TopicFacts({ topic, brands }: { topic: Topic; brands: Brand[] | undefined }) {
  return (
    <div class="card">
      <dl class="facts">
        <div>
          <dt>Brands</dt>
          <dd>
            <TopicBrands topic={topic} brands={brands} />
          </dd>
        </div>
        <div>
          <dt>Default</dt>
          <dd>{topic.isDefault ? 'The default topic: every page' : 'no'}</dd>
        </div>
        <div>
          <dt>Order</dt>
          <dd>{topic.sortOrder}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time at={topic.updatedAt} />
          </dd>
        </div>
      </dl>
      <dl class="facts whole">
        <div>
          <dt>Purpose</dt>
          <dd class="log-text">{topic.purpose || <span class="muted">none</span>}</dd>
        </div>
      </dl>
    </div>
  );
}

function Entries({ topic, onChanged }: { topic: Topic; onChanged: () => Promise<void> }) {
  // A new key after each entry added gives the next one an empty form.
  const [added, setAdded] = useState(0);
  const full = topic.entries.length >= ENTRIES_PER_TOPIC;
  return (
    <section aria-labelledby="entries-heading">
      <h2 id="entries-heading">Entries</h2>
      <p class="muted">
        Shown as a generated page shows them: paragraphs, lists, bold, italic and links, whatever their
        format. Generation picks the entries most relevant to each audience.
      </p>
      <Writable>
        {full ? (
          <p class="muted">
            This topic holds {ENTRIES_PER_TOPIC} entries, as many as a topic may: split it to add more.
          </p>
        ) : (
          <details class="card" open={topic.entries.length === 0}>
            <summary>Add an entry</summary>
            <EntryForm
              key={added}
              topicId={topic.topicId}
              onSaved={() => {
                setAdded((count) => count + 1);
                void onChanged();
              }}
            />
          </details>
        )}
      </Writable>
      {topic.entries.length === 0 ? (
        <p class="muted">No entry yet.</p>
      ) : (
        topic.entries.map((entry, index) => (
          <EntryCard
            key={entry.topicEntryId}
            topicId={topic.topicId}
            entry={entry}
            number={index + 1}
            onSaved={() => void onChanged()}
          />
        ))
      )}
    </section>
  );
}
