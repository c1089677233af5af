import { monotonicFactory } from 'ulid';

export const ID_PREFIXES = [
  'account',
  'page',
  'audience',
  'version',
  'asset',
  'file',
  'topic',
  'topicentry',
  'person',
  'personlog',
  'pagelink',
  'whsub',
  'evt',
  'delivery',
  'form',
  'tenant',
  'key',
  'action',
  'job',
  'brand',
  'domain',
] as const;

export type IdPrefix = (typeof ID_PREFIXES)[number];

// Monotonic so that ids made within one millisecond still sort in creation order.
const nextUlid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
