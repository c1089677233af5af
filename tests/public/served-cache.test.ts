import { describe, expect, it } from 'vitest';
import { ServedCache } from '../../src/workflows/page-view/served-cache.ts';
import type { ServedRead } from '../../src/workflows/page-view/served-store.ts';

function rowOf(tenantId: string, generation: number, bytes: number): ServedRead {
  return {
    arm: 'personalized',
    tenant_id: tenantId,
    generation,
    audience_id: 'a',
    holdout_percent: 0,
    etag: 'e',
    token_expires_at: 0,
    body: Buffer.alloc(bytes),
  };
}

describe('the rows a node keeps per address (served-cache.ts)', () => {
  it('keeps rows of one tenant and generation, per encoding, and forgets them', () => {
    const cache = new ServedCache();
    cache.keep('s a/x', true, [rowOf('t', 3, 10)]);
    expect(cache.get('s a/x', true)).toMatchObject({ tenantId: 't', generation: 3 });
    expect(cache.get('s a/x', false)).toBeUndefined();
    cache.keep('s a/y', true, [rowOf('t', 3, 10), rowOf('u', 3, 10)]);
    expect(cache.get('s a/y', true)).toBeUndefined();
    cache.forget('s a/x');
    expect(cache.get('s a/x', true)).toBeUndefined();
  });

  it('is bounded by bytes, the least recently read going first', () => {
    const cache = new ServedCache();
    const mib = 1024 * 1024;
    for (let page = 0; page < 20; page++) cache.keep(`s a/${page}`, true, [rowOf('t', 1, mib)]);
    const kept = Array.from({ length: 20 }, (_, page) => cache.get(`s a/${page}`, true) !== undefined);
    expect(kept.filter(Boolean).length).toBe(16);
    expect(kept.slice(0, 4)).toEqual([false, false, false, false]);
  });

  it('is bounded by addresses', () => {
    const cache = new ServedCache();
    for (let page = 0; page < 2_500; page++) cache.keep(`s a/${page}`, false, [rowOf('t', 1, 1)]);
    expect(cache.get('s a/0', false)).toBeUndefined();
    expect(cache.get('s a/2499', false)).toBeDefined();
    const kept = Array.from({ length: 2_500 }, (_, page) => cache.get(`s a/${page}`, false)).filter(Boolean);
    expect(kept.length).toBe(2_000);
  });
});
