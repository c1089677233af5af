import type { paths } from './schema.ts';

// The named shapes of the API. Until the document names its schemas under components.schemas, each
// is read from the operation that carries it.

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Answer<P extends keyof paths, M extends Method, S extends number> = paths[P][M] extends {
  responses: Record<S, infer R>;
}
  ? JsonOf<R>
  : never;
type RequestBody<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: infer B }
  ? JsonOf<NonNullable<B>>
  : never;

export type Account = Answer<'/v0/accounts/{account_id}', 'get', 200>;
export type AccountCreate = RequestBody<'/v0/accounts', 'post'>;
export type Person = Answer<'/v0/persons/{person_id}', 'get', 200>;
export type PersonCreate = RequestBody<'/v0/persons', 'post'>;
export type PersonUpdate = RequestBody<'/v0/persons/{person_id}', 'patch'>;
export type PersonList = Answer<'/v0/persons', 'get', 200>;
export type Page = Answer<'/v0/pages/{page_id}', 'get', 200>;
export type PageCreate = RequestBody<'/v0/pages', 'post'>;
export type PageUpdate = RequestBody<'/v0/pages/{page_id}', 'patch'>;
export type PageList = Answer<'/v0/pages', 'get', 200>;
export type Audience = Answer<'/v0/pages/{page_id}/audiences/{audience_id}', 'get', 200>;
export type AudienceCreate = RequestBody<'/v0/pages/{page_id}/audiences', 'post'>;
export type AudienceList = Answer<'/v0/pages/{page_id}/audiences', 'get', 200>;
export type AudienceVersion = Audience['publishedVersion'];
export type PageLink = Answer<'/v0/page_links/{page_link_id}', 'get', 200>;
export type PageLinkCreate = RequestBody<'/v0/page_links', 'post'>;
export type WebhookSubscription = Answer<'/v0/webhook_subscriptions/{subscription_id}', 'get', 200>;
export type WebhookSubscriptionCreate = RequestBody<'/v0/webhook_subscriptions', 'post'>;
export type WebhookSubscriptionWithSecret = Answer<'/v0/webhook_subscriptions', 'post', 201>;
export type Problem = JsonOf<paths['/v0/persons']['post']['responses']['4XX']>;
export type FieldError = NonNullable<Problem['errors']>[number];
