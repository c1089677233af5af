import { unwrap } from '../../api.ts';
import { ViewHead } from '../../components/layout.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { bodyOf, changesOf, draftOf, NEW_TOPIC, type TopicDraft, TopicForm } from './form.tsx';

export function NewTopic() {
  const { client } = useSession();
  const create = useAction(async (draft: TopicDraft) => {
    const topic = await unwrap(client.POST('/v0/topics', { body: bodyOf(draft) }));
    navigate(`/topics/${topic.topicId}`, { replace: true });
  });
  return (
    <>
      <ViewHead title="New topic" trail={<Link href="/topics">Topics</Link>} />
      <TopicForm initial={NEW_TOPIC} operation="createTopic" submitLabel="Create the topic" save={create} />
    </>
  );
}

export function EditTopic({ topicId }: { topicId: string }) {
  const { client } = useSession();
  const path = { params: { path: { topic_id: topicId } } };
  const topic = useLoad(() => unwrap(client.GET('/v0/topics/{topic_id}', path)), [topicId]);
  const save = useAction(async (draft: TopicDraft) => {
    if (!topic.data) return;
    await unwrap(client.PATCH('/v0/topics/{topic_id}', { ...path, body: changesOf(draft, topic.data) }));
    navigate(`/topics/${topicId}`);
  });
  return (
    <>
      <ViewHead
        title={topic.data ? `Edit ${topic.data.title}` : 'Edit topic'}
        trail={
          <>
            <Link href="/topics">Topics</Link> ›{' '}
            <Link href={`/topics/${topicId}`}>{topic.data?.title ?? 'Topic'}</Link>
          </>
        }
      />
      <ProblemMessage failure={topic.failure} />
      {topic.data && (
        <TopicForm
          initial={draftOf(topic.data)}
          operation="updateTopic"
          submitLabel="Save changes"
          save={save}
        />
      )}
    </>
  );
}
