import { describe, expect, it } from 'vitest';
import { ItemTexts } from '../../src/resources/sessions/item-texts.ts';
import type { Totals } from '../../src/resources/sessions/store.ts';

// The analytics items' JSON kept per page: that the answer is the one JSON.stringify writes, and
// that an item is written again exactly when its totals move. Over HTTP, the analytics tests check
// every answer against the stored sessions.

const totals = (sessions: number): Totals => ({
  sessions,
  interactions: sessions * 3,
  scroll_depth_sum: sessions * 41,
  time_spent_ms_sum: sessions * 7_001,
  bounces: 1,
  conversions: Math.min(sessions, 2),
  cta_sessions: 1,
  form_submit_sessions: 0,
});

describe('ItemTexts', () => {
  it('answers what JSON.stringify writes, writing again only the items whose totals moved', () => {
    const texts = new ItemTexts();
    const written: string[] = [];
    const present = (audienceId: string, { sessions, conversions }: Totals) => {
      written.push(audienceId);
      return { audienceId, totalSessions: sessions, conversionRate: conversions / 3 } as never;
    };
    const items = (a: number, b: number, c: number): [string, Totals][] => [
      ['aud_c', totals(c)],
      ['aud_b', totals(b)],
      ['aud_a', totals(a)],
    ];
    const expected = (list: [string, Totals][]) =>
      JSON.stringify({
        items: list.map(([audienceId, { sessions, conversions }]) => ({
          audienceId,
          totalSessions: sessions,
          conversionRate: conversions / 3,
        })),
      });

    expect(texts.answer('t p', items(1, 2, 3), present).toString()).toBe(expected(items(1, 2, 3)));
    expect(written).toEqual(['aud_c', 'aud_b', 'aud_a']);
    written.length = 0;
    expect(texts.answer('t p', items(1, 5, 3), present).toString()).toBe(expected(items(1, 5, 3)));
    expect(written).toEqual(['aud_b']);
    // Another page writes its own.
    written.length = 0;
    expect(texts.answer('t q', items(1, 5, 3), present).toString()).toBe(expected(items(1, 5, 3)));
    expect(written).toHaveLength(3);
    // No audiences.
    expect(texts.answer('t r', [], present).toString()).toBe('{"items":[]}');
  });
});
