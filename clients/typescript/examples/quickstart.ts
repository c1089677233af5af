/**
 * A first program on the Tailor API: a person, a page, an audience for the person that publishes
 * itself and a page link that serves it, the persons listed page by page, and the signed
 * `page.version.published` event received and verified. Run it against a local server that may deliver webhooks to loopback:
 *
 *   TAILOR_WEBHOOK_ALLOW_PRIVATE=true npm start        # prints the default tenant's key once
 *   TAILOR_API_KEY=tlr_… npx tsx clients/typescript/examples/quickstart.ts
 */
import http from 'node:http';
import { text } from 'node:stream/consumers';
import {
  createTailorClient,
  type Person,
  type PersonCreate,
  paginate,
  type TailorClient,
  type TailorEvent,
  TailorProblem,
  unwrap,
  verifyWebhook,
} from '@tailor/client';

const apiKey = process.env.TAILOR_API_KEY;
if (!apiKey) throw new Error('Set TAILOR_API_KEY to a key of `tailor keys create`');
const tailor = createTailorClient({ baseUrl: process.env.TAILOR_URL ?? 'http://127.0.0.1:8080', apiKey });

/** The person with this email: created, or found when it exists already (email is unique). */
async function findOrCreatePerson(
  client: TailorClient,
  person: PersonCreate & { email: string },
): Promise<Person> {
  try {
    return await unwrap(client.POST('/v0/persons', { body: person }));
  } catch (error) {
    if (!(error instanceof TailorProblem && error.code === 'conflict')) throw error;
    const found = await unwrap(client.GET('/v0/persons', { params: { query: { email: person.email } } }));
    const [existing] = found.items;
    if (!existing) throw error;
    return existing;
  }
}

/**
 * A receiver on 127.0.0.1 that verifies every delivery with the subscription's secret (known once
 * the subscription exists) and hands each event to `onEvent`; a delivery that fails verification
 * is answered 400 and dropped.
 */
async function listenForEvents(onEvent: (event: TailorEvent) => void) {
  let secret = '';
  const server = http.createServer(async (request, response) => {
    const payload = await text(request);
    try {
      onEvent(verifyWebhook(secret, payload, request.headers));
      response.writeHead(204).end();
    } catch (error) {
      console.warn('rejected a delivery:', error);
      response.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the receiver has no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}/tailor-events`,
    useSecret: (value: string) => {
      secret = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type PublishedEvent = Extract<TailorEvent, { type: 'page.version.published' }>;

let announcePublished: (event: PublishedEvent) => void = () => {};
const published = new Promise<PublishedEvent>((resolve) => {
  announcePublished = resolve;
});
const receiver = await listenForEvents((event) => {
  console.log(`event ${event.type} (${event.id})`);
  if (event.type === 'page.version.published') announcePublished(event);
});
const subscription = await unwrap(
  tailor.POST('/v0/webhook_subscriptions', {
    body: { url: receiver.url, events: ['page.version.published'] },
  }),
);
receiver.useSecret(subscription.secret);

try {
  const ada = await findOrCreatePerson(tailor, { name: 'Ada Lovelace', email: 'ada@analytical.example' });
  console.log(`person ${ada.personId} at ${ada.domain}`);

  const page = await unwrap(
    tailor.POST('/v0/pages', {
      body: {
        name: 'Spring launch',
        pageContext: 'Analytical Engines for every counting house. Book a demo to see one at work.',
        brandId: 'analytical',
        actions: [
          {
            actionId: 'demo',
            buttonTitle: 'Book a demo',
            actionType: 'link',
            url: 'https://example.com/demo',
          },
        ],
        actionCardWidgets: [],
        scripts: [],
      },
    }),
  );
  await unwrap(tailor.POST('/v0/pages/{page_id}/publish', { params: { path: { page_id: page.pageId } } }));
  console.log(`page ${page.pageId} published`);

  const audience = await unwrap(
    tailor.POST('/v0/pages/{page_id}/audiences', {
      params: { path: { page_id: page.pageId } },
      body: { personId: ada.personId, autoPublish: true },
    }),
  );
  console.log(`audience ${audience.effectiveName}: version ${audience.latestVersion.versionNumber} queued`);

  // Visitors open the link on the pages origin (never the API's): the link says where.
  const link = await unwrap(
    tailor.POST('/v0/page_links', {
      body: {
        path: `/spring/${ada.personId.slice(-8)}`,
        target: { targetType: 'audience', audienceId: audience.audienceId },
      },
    }),
  );
  console.log(`page link ${link.url}`);

  for await (const person of paginate(tailor, '/v0/persons', { params: { query: { limit: 2 } } })) {
    console.log(`- ${person.name} <${person.email ?? 'no email'}>`);
  }

  const event = await Promise.race([
    published,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('no page.version.published within a minute')), 60_000).unref(),
    ),
  ]);
  const { version } = event.data;
  console.log(
    `version ${version.versionNumber} of audience ${event.data.audienceId} published at ${version.publishedAt}`,
  );
} finally {
  await unwrap(
    tailor.DELETE('/v0/webhook_subscriptions/{subscription_id}', {
      params: { path: { subscription_id: subscription.subscriptionId } },
    }),
  );
  await receiver.close();
}
