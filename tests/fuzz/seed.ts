import type { Database } from '../../src/db/connection.ts';
import { issueToken, TOKEN_VALID_MS } from '../../src/public/token.ts';
import { issueKey, revoke } from '../../src/resources/api-keys/service.ts';
import { Signer } from '../../src/shared/signing.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { png, uploadImage } from '../helpers/images.ts';
import { TEST_SECRET } from '../helpers/server.ts';
import type { TenantIndex, World } from './world.ts';

/**
 * Gives a tenant one of every kind of resource, linked as a user would link them, so that requests
 * can name real ids: a person at an account with a log entry, a brand with a logo asset, a topic
 * with an entry, a published page with an audience, its versions and a link, a webhook
 * subscription to the local receiver, and a form submitted on the page. Every id is the tenant's
 * in `world`; the ids that go together make one context.
 */
async function seedOnce(world: World, tenant: TenantIndex, round: number, webhookUrl: string): Promise<void> {
  const client = world.tenants[tenant].client;
  const ok = async (method: string, url: string, body?: unknown) => {
    const response = await client.request(method, url, { body });
    if (response.status >= 300) {
      throw new Error(`seeding ${method} ${url}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    for (const id of JSON.stringify(response.body).match(/\b[a-z]+_[0-9a-z]{26}\b/g) ?? [])
      world.own(tenant, id);
    return response.body;
  };
  const name = `t${tenant}r${round}`;
  const domain = `${name}.example`;
  const account = await ok('POST', '/v0/accounts', { domain, name: `Account ${name}` });
  const person = await ok('POST', '/v0/persons', { name: `Person ${name}`, email: `ada@${domain}` });
  const log = await ok('POST', `/v0/persons/${person.personId}/logs`, { text: 'Met at the fair' });
  const fileId = await uploadImage(client, png(tenant * 100 + round, round, 7));
  const file = await ok('GET', `/v0/files/${fileId}`);
  const asset = await ok('POST', '/v0/assets', { assetType: 'image', name: 'Logo', purpose: '', fileId });
  const brandId = `brand-${name}`;
  await ok('PUT', `/v0/brands/${brandId}`, { name: `Brand ${name}`, logoAssetId: asset.assetId });
  const topic = await ok('POST', '/v0/topics', { title: `Topic ${name}`, brandIds: [brandId] });
  const entry = await ok('POST', `/v0/topics/${topic.topicId}/entries`, {
    content: { type: 'markdown', content: 'We **ship** fast.' },
  });
  const page = await ok('POST', '/v0/pages', {
    name: `Page ${name}`,
    pageContext: 'Tailor helps retailers grow.',
    brandId,
    actions: [{ actionId: 'demo', buttonTitle: 'Book a demo', actionType: 'form' }],
    actionCardWidgets: [{ type: 'logos', logos: [{ image: { fileId, altText: 'Logo' } }] }],
    scripts: [],
  });
  await ok('POST', `/v0/pages/${page.pageId}/publish`);
  const audience = await ok(
    'POST',
    `/v0/pages/${page.pageId}/audiences`,
    round === 0 ? { personId: person.personId } : { accountId: account.accountId },
  );
  const versions = await ok('GET', `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions`);
  const link = await ok('POST', '/v0/page_links', {
    path: `/fuzz/${name}`,
    target: { targetType: 'audience', audienceId: audience.audienceId },
  });
  const subscription = await ok('POST', '/v0/webhook_subscriptions', { url: webhookUrl });
  const signer = new Signer(TEST_SECRET);
  const claims = {
    tenantId: client.tenantId,
    pageId: page.pageId,
    audienceId: audience.audienceId,
    pageLinkId: link.pageLinkId,
    arm: round === 0 ? ('personalized' as const) : ('baseline' as const),
  };
  const token = issueToken(signer, { ...claims, expiresAt: Date.now() + TOKEN_VALID_MS });
  const lead = await ok('POST', '/v0/public/forms', {
    token,
    email: `lead@${domain}`,
    fields: { name: `Lead ${name}`, message: 'Call me' },
  });

  const state = world.tenants[tenant];
  state.addContext({
    account_id: account.accountId,
    person_id: person.personId,
    person_log_id: log.personLogId,
    file_id: fileId,
    asset_id: asset.assetId,
    brand_id: brandId,
    topic_id: topic.topicId,
    topic_entry_id: entry.topicEntryId,
    page_id: page.pageId,
    audience_id: audience.audienceId,
    version_id: versions.items.at(-1).versionId,
    page_link_id: link.pageLinkId,
    subscription_id: subscription.subscriptionId,
    form_submission_id: lead.formSubmissionId,
  });
  state.add('id:brand', brandId);
  for (const url of [file.downloadUrl, file.previewDownloadUrl]) {
    if (url) state.add('link', new URL(url).pathname + new URL(url).search);
  }
  state.add('token', token);
  state.add('token', issueToken(signer, { ...claims, expiresAt: Date.now() - 1000 }));
  state.add('token', `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
}

/**
 * Seeds both tenants, twice each: two contexts apiece, the second audience for an account. Each
 * tenant also gets a read-only key and a revoked one.
 */
export async function seedWorld(world: World, database: Database, webhookUrl: string): Promise<void> {
  for (const round of [0, 1]) {
    for (const tenant of [0, 1] as const) await seedOnce(world, tenant, round, webhookUrl);
  }
  for (const tenant of world.tenants) {
    const tenantId = tenant.client.tenantId;
    tenant.keys['read-only'] = (await issueKey(anyTables(database), tenantId, { readOnly: true })).apiKey;
    const revoked = await issueKey(anyTables(database), tenantId);
    await revoke(anyTables(database), revoked.keyId);
    tenant.keys.revoked = revoked.apiKey;
  }
}
