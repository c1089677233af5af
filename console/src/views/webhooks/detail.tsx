import type { WebhookDelivery, WebhookSubscription } from '@tailor/client';
import { useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { ConfirmButton } from '../../components/confirm.tsx';
import { StatusBadge, Time } from '../../components/format.tsx';
import { ViewHead } from '../../components/layout.tsx';
import { PagedList } from '../../components/paged-list.tsx';
import { ProblemMessage } from '../../components/problem.tsx';
import { useAction, useLoad } from '../../hooks.ts';
import { Link, navigate } from '../../router.tsx';
import { useSession, Writable } from '../../session.tsx';
import { describeEvents, draftOf, SecretOnce, type SubscriptionDraft, SubscriptionForm } from './form.tsx';

export function WebhookDetail({ subscriptionId }: { subscriptionId: string }) {
  const { client } = useSession();
  const path = { params: { path: { subscription_id: subscriptionId } } };
  const subscription = useLoad(
    () => unwrap(client.GET('/v0/webhook_subscriptions/{subscription_id}', path)),
    [subscriptionId],
  );
  const [secret, setSecret] = useState<string | null>(null);
  const [tested, setTested] = useState<WebhookDelivery | null>(null);
  const [logVersion, setLogVersion] = useState(0);
  const reloadLog = () => setLogVersion((version) => version + 1);

  const test = useAction(async () => {
    setTested(null);
    setTested(await unwrap(client.POST('/v0/webhook_subscriptions/{subscription_id}/test', path)));
    reloadLog();
  });
  const rotate = useAction(async () => {
    const rotated = await unwrap(
      client.POST('/v0/webhook_subscriptions/{subscription_id}/rotate_secret', path),
    );
    setSecret(rotated.secret);
  });
  const remove = useAction(async () => {
    await unwrap(client.DELETE('/v0/webhook_subscriptions/{subscription_id}', path));
    navigate('/webhooks', { replace: true });
  });

  const data = subscription.data;
  return (
    <>
      <ViewHead
        title={data ? data.url : 'Webhook subscription'}
        trail={<Link href="/webhooks">Webhooks</Link>}
      >
        {data && (
          <Writable>
            {data.active && (
              <button type="button" class="primary" disabled={test.pending} onClick={() => test.run()}>
                {test.pending ? 'Sending a test…' : 'Send a test'}
              </button>
            )}
            <ConfirmButton
              label="Rotate secret"
              question="Make a new secret? The old one keeps signing beside it for 24 hours."
              confirm="Yes, rotate"
              pending={rotate.pending}
              onConfirm={rotate.run}
            />
            <ConfirmButton
              label="Delete"
              question="Delete this subscription and its delivery log?"
              confirm="Yes, delete"
              pending={remove.pending}
              onConfirm={remove.run}
            />
          </Writable>
        )}
      </ViewHead>
      <ProblemMessage failure={subscription.failure ?? test.failure ?? rotate.failure ?? remove.failure} />
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(null)} />}
      {tested && <TestOutcome delivery={tested} />}
      {data && <SubscriptionFacts subscription={data} />}
      {data && (
        <Writable>
          <EditSubscription subscription={data} onSaved={subscription.set} />
        </Writable>
      )}
      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Delivery log</h2>
        <DeliveryLog
          subscriptionId={subscriptionId}
          canRetry={data?.active ?? false}
          version={logVersion}
          onRetried={reloadLog}
        />
      </section>
    </>
  );
}

/** What the receiver made of the test: the API answers once it has answered (or failed to). */
function TestOutcome({ delivery }: { delivery: WebhookDelivery }) {
  const succeeded = delivery.state === 'succeeded';
  return (
    <div class={succeeded ? 'notice' : 'notice warn'} role="status">
      <p>
        {succeeded ? (
          <>
            <strong>Test delivered:</strong> the receiver answered {delivery.lastStatusCode}.
          </>
        ) : (
          <>
            <strong>The test failed:</strong> {delivery.lastError ?? 'no answer'}
            {delivery.lastStatusCode !== null && ` (status ${delivery.lastStatusCode})`}. It is in the log
            below, from which it can be retried.
          </>
        )}
      </p>
    </div>
  );
}

function SubscriptionFacts({ subscription }: { subscription: WebhookSubscription }) {
  return (
    <div class="card">
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd>
            <StatusBadge status={subscription.active ? 'active' : 'inactive'} />
          </dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>{describeEvents(subscription.events)}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time at={subscription.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time at={subscription.updatedAt} />
          </dd>
        </div>
      </dl>
      {!subscription.active && (
        <p class="muted">
          Switched off: it receives no event, test or retry (a 410 answer, 5 days of failures, or a change
          here switch it off). Switch it on to use it again.
        </p>
      )}
    </div>
  );
}

function EditSubscription({
  subscription,
  onSaved,
}: {
  subscription: WebhookSubscription;
  onSaved: (subscription: WebhookSubscription) => void;
}) {
  const { client } = useSession();
  const [open, setOpen] = useState(false);
  const save = useAction(async (draft: SubscriptionDraft) => {
    onSaved(
      await unwrap(
        client.PATCH('/v0/webhook_subscriptions/{subscription_id}', {
          params: { path: { subscription_id: subscription.subscriptionId } },
          body: draft,
        }),
      ),
    );
    setOpen(false);
  });
  return (
    <details
      class="card"
      open={open}
      onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>Edit the subscription</summary>
      {open && (
        <SubscriptionForm
          initial={draftOf(subscription)}
          operation="updateWebhookSubscription"
          submitLabel="Save changes"
          failure={save.failure}
          pending={save.pending}
          onSubmit={save.run}
        />
      )}
    </details>
  );
}

interface DeliveryLogProps {
  subscriptionId: string;
  /** Retrying needs an active subscription (409 otherwise). */
  canRetry: boolean;
  /** Changes when a delivery was added or retried, to list it again. */
  version: number;
  onRetried: () => void;
}

/** One delivery per event, newest first; refreshed while one is pending, so a retry's outcome shows. */
function DeliveryLog({ subscriptionId, canRetry, version, onRetried }: DeliveryLogProps) {
  const { client } = useSession();
  const retry = useAction(async (delivery: WebhookDelivery) => {
    await unwrap(
      client.POST('/v0/webhook_subscriptions/{subscription_id}/deliveries/{delivery_id}/retry', {
        params: { path: { subscription_id: subscriptionId, delivery_id: delivery.deliveryId } },
      }),
    );
    onRetried();
  });
  return (
    <>
      <ProblemMessage failure={retry.failure} />
      <PagedList<WebhookDelivery>
        caption="Delivery log"
        deps={[subscriptionId, version]}
        load={(cursor) =>
          unwrap(
            client.GET('/v0/webhook_subscriptions/{subscription_id}/deliveries', {
              params: { path: { subscription_id: subscriptionId }, query: { cursor } },
            }),
          )
        }
        live={(deliveries) => deliveries.some((delivery) => delivery.state === 'pending')}
        rowKey={(delivery) => delivery.deliveryId}
        empty="Nothing delivered yet. Send a test to check the receiver."
        columns={[
          {
            label: 'Event',
            cell: (delivery) => (
              <>
                {delivery.eventType}
                <br />
                <code class="muted">{delivery.eventId}</code>
              </>
            ),
          },
          { label: 'State', cell: (delivery) => <StatusBadge status={delivery.state} /> },
          { label: 'Attempts', cell: (delivery) => delivery.attempts },
          { label: 'Last answer', cell: (delivery) => <LastAnswer delivery={delivery} /> },
          { label: 'Delivered or due', cell: (delivery) => <DeliveredOrDue delivery={delivery} /> },
          { label: 'Created', cell: (delivery) => <Time at={delivery.createdAt} /> },
          {
            label: 'Actions',
            cell: (delivery) =>
              canRetry && delivery.state !== 'pending' ? (
                <Writable>
                  <button
                    type="button"
                    aria-label={`Retry the delivery of ${delivery.eventId}`}
                    disabled={retry.pending}
                    onClick={() => retry.run(delivery)}
                  >
                    Retry
                  </button>
                </Writable>
              ) : (
                <span class="muted">—</span>
              ),
          },
        ]}
      />
    </>
  );
}

/** When it was delivered, or when its next attempt is due; a dash once it has failed for good. */
function DeliveredOrDue({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.deliveredAt)
    return (
      <>
        delivered <Time at={delivery.deliveredAt} />
      </>
    );
  if (delivery.nextAttemptAt)
    return (
      <>
        next attempt <Time at={delivery.nextAttemptAt} />
      </>
    );
  return <span class="muted">—</span>;
}

/** The receiver's status at the last attempt, or why no status came (refused, timed out, address refused). */
function LastAnswer({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts === 0) return <span class="muted">not tried yet</span>;
  if (delivery.lastStatusCode !== null) return <>status {delivery.lastStatusCode}</>;
  return <>{delivery.lastError ?? 'no answer'}</>;
}
