import { describe, expect, it } from 'vitest';
import { byteLength, KeptAnswers } from '../../src/resources/sessions/kept-answers.ts';

// The bounds and sharing of the kept analytics answers; that they are never stale is
// analytics-kept.test.ts's, over HTTP.

const bytes = (n: number) => async () => Buffer.alloc(n);

describe('KeptAnswers', () => {
  it('keeps at most its count, least recently used out first', async () => {
    const kept = new KeptAnswers(byteLength, 1000, 2);
    await kept.answer('a', 1, bytes(10));
    await kept.answer('b', 1, bytes(10));
    await kept.answer('a', 1, bytes(99)); // a used again: b is now the oldest
    await kept.answer('c', 1, bytes(10));
    expect(kept.size).toEqual({ count: 2, bytes: 20 });
    let computed = 0;
    const counting = async () => {
      computed++;
      return Buffer.alloc(10);
    };
    await kept.answer('a', 1, counting);
    await kept.answer('c', 1, counting);
    expect(computed).toBe(0);
    await kept.answer('b', 1, counting);
    expect(computed).toBe(1);
  });

  it('keeps at most its bytes, and no answer larger than them', async () => {
    const kept = new KeptAnswers(byteLength, 100, 10);
    for (const key of ['a', 'b', 'c']) await kept.answer(key, 1, bytes(40));
    expect(kept.size).toEqual({ count: 2, bytes: 80 });
    expect((await kept.answer('huge', 1, bytes(101))).length).toBe(101);
    expect(kept.size).toEqual({ count: 2, bytes: 80 });
  });

  it('serves an answer only at its version, and keeps the newest', async () => {
    const kept = new KeptAnswers(byteLength);
    await kept.answer('a', 1, async () => Buffer.from('one'));
    expect((await kept.answer('a', 2, async () => Buffer.from('two'))).toString()).toBe('two');
    expect((await kept.answer('a', 2, async () => Buffer.from('never'))).toString()).toBe('two');
    expect(kept.size).toEqual({ count: 1, bytes: 3 });
  });

  it('shares one computation among concurrent askers, and keeps none that failed', async () => {
    const kept = new KeptAnswers(byteLength);
    let computed = 0;
    const slow = async () => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return Buffer.from('x');
    };
    await Promise.all([kept.answer('a', 1, slow), kept.answer('a', 1, slow)]);
    expect(computed).toBe(1);
    await expect(kept.answer('b', 1, async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(kept.size).toEqual({ count: 1, bytes: 1 });
    expect((await kept.answer('b', 1, async () => Buffer.from('yes'))).toString()).toBe('yes');
  });
});
