import { getRandomValues } from 'node:crypto';
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

/**
 * A uniform fraction in [0, 1) of one random byte, as ulid's own source gives, from the system's
 * cryptographic source; its bytes are drawn 4 KiB at a time, where ulid's asks the system once per
 * character (16 times for every id).
 */
const randomBytes = new Uint8Array(4096);
let nextByte = randomBytes.length;
function randomFraction(): number {
  if (nextByte === randomBytes.length) {
    getRandomValues(randomBytes);
    nextByte = 0;
  }
  return (randomBytes[nextByte++] as number) / 256;
}

// Monotonic so that ids made within one millisecond still sort in creation order.
const nextUlid = monotonicFactory(randomFraction);

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
