import { randomBytes } from 'node:crypto';

/** Crockford's base 32, as ULIDs are written. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

function encodeTime(ms: number): string {
  let out = '';
  for (let rest = ms, i = 0; i < TIME_CHARS; i++, rest = Math.floor(rest / 32)) {
    out = ALPHABET[rest % 32] + out;
  }
  return out;
}

/** Sixteen random base-32 digits, most significant first. */
function randomDigits(): number[] {
  return [...randomBytes(RANDOM_CHARS)].map((byte) => byte % 32);
}

/** The digits plus one, carrying; the monotonic factory's step within one millisecond. */
function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] === 31) {
      next[i] = 0;
      continue;
    }
    next[i] = (next[i] as number) + 1;
    return next;
  }
  throw new Error('ULID randomness overflowed within one millisecond');
}

/**
 * A maker of ULIDs that sort in the order they were made, as the `ulid` package's monotonicFactory
 * made them when migration 0023 was written: a copy of its own, so that no package update changes
 * what that migration does.
 */
export function monotonicUlids(): () => string {
  let lastTime = -1;
  let lastDigits: number[] = [];
  return () => {
    const now = Date.now();
    lastDigits = now <= lastTime ? increment(lastDigits) : randomDigits();
    lastTime = Math.max(now, lastTime);
    return encodeTime(lastTime) + lastDigits.map((digit) => ALPHABET[digit]).join('');
  };
}
