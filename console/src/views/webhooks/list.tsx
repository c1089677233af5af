import type { WebhookSubscription, WebhookSubscriptionWithSecret } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { StatusBadge, Time } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { useAction } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import {
  describeEvents,
  NEW_SUBSCRIPTION,
  SecretOnce,
  type SubscriptionDraft,
  SubscriptionForm,
} from './form.tsx';

/** Webhook subscriptions, newest first, and a form to make one (its secret shown once). */
export function WebhookList() {
  const { client } = useSession();
  const [created, setCreated] = useState<WebhookSubscriptionWithSecret | null>(null);
  const create = useAction(async (draft: SubscriptionDraft) => {
    setCreated(await unwrap(client.POST('/v0/webhook_subscriptions', { body: draft })));
  });
  return (
    <>
      <ViewHead title="Webhooks" />
      <p class="muted">
        Tailor POSTs each event to the URL of every active subscription that selects its kind, signed as
        Standard Webhooks specifies, and retries failed deliveries for about a day.
      </p>
      <Writable>
        {created ? (
          <div class="card">
            <p>
              Subscription to <strong>{created.url}</strong> made.{' '}
              <Link href={`/webhooks/${created.subscriptionId}`}>Open it</Link> to send a test.
            </p>
            <SecretOnce secret={created.secret} onDone={() => setCreated(null)} />
          </div>
        ) : (
          <details class="card" open={create.failure !== null}>
            <summary>New subscription</summary>
            <SubscriptionForm
              initial={NEW_SUBSCRIPTION}
              operation="createWebhookSubscription"
              submitLabel="Create the subscription"
              failure={create.failure}
              pending={create.pending}
              onSubmit={create.run}
            />
          </details>
        )}
      </Writable>
      <PagedList<WebhookSubscription>
        caption="Webhook subscriptions"
        deps={[created?.subscriptionId]}
        load={(cursor) => unwrap(client.GET('/v0/webhook_subscriptions', { params: { query: { cursor } } }))}
        rowKey={(subscription) => subscription.subscriptionId}
        empty="No subscription yet: make one to have events POSTed to your system."
        columns={[
          {
            label: 'Receiver',
            cell: (subscription) => (
              <Link href={`/webhooks/${subscription.subscriptionId}`}>{subscription.url}</Link>
            ),
          },
          { label: 'Events', cell: (subscription) => describeEvents(subscription.events) },
          {
            label: 'State',
            cell: (subscription) => <StatusBadge status={subscription.active ? 'active' : 'inactive'} />,
          },
          { label: 'Created', cell: (subscription) => <Time at={subscription.createdAt} /> },
        ]}
      />
    </>
  );
}
