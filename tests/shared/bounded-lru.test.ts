import { describe, expect, it } from 'vitest';
import { BoundedLru } from '../../src/shared/bounded-lru.ts';

function keys(lru: BoundedLru<number>, candidates: string[]): string[] {
  return candidates.filter((key) => lru.peek(key) !== undefined);
}

describe('BoundedLru', () => {
  it('drops the least recently used past its count, a read counting as a use', () => {
    const lru = new BoundedLru<number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4);
    expect(keys(lru, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
    expect(lru.size).toEqual({ count: 3, bytes: 0 });
  });

  it('keeps the order of use when the newest is read again, or forgotten', () => {
    const lru = new BoundedLru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('b')).toBe(2);
    expect(lru.get('b')).toBe(2);
    lru.set('c', 3);
    expect(keys(lru, ['a', 'b', 'c'])).toEqual(['b', 'c']);
    lru.delete('c');
    lru.set('d', 4);
    expect(lru.get('b')).toBe(2);
    lru.set('e', 5);
    expect(keys(lru, ['b', 'd', 'e'])).toEqual(['b', 'e']);
  });

  it('drops the least recently used past its bytes', () => {
    const lru = new BoundedLru<number>(10, 100);
    lru.set('a', 1, 40);
    lru.set('b', 2, 40);
    lru.get('a');
    lru.set('c', 3, 40);
    expect(keys(lru, ['a', 'b', 'c'])).toEqual(['a', 'c']);
    expect(lru.size).toEqual({ count: 2, bytes: 80 });
    lru.set('d', 4, 200);
    expect(lru.size).toEqual({ count: 0, bytes: 0 });
    lru.set('e', 5, 10);
    expect(lru.get('e')).toBe(5);
  });

  it('forgets a value only while it is the one kept, and everything on clear', () => {
    const lru = new BoundedLru<number>(10, 100);
    lru.set('a', 1, 10);
    lru.delete('a', 2);
    expect(lru.get('a')).toBe(1);
    lru.delete('a', 1);
    expect(lru.get('a')).toBeUndefined();
    lru.set('b', 2, 10);
    lru.set('c', 3, 10);
    lru.clear();
    expect(lru.size).toEqual({ count: 0, bytes: 0 });
    lru.set('b', 2, 10);
    expect(lru.get('b')).toBe(2);
  });
});
