import slugify from '@sindresorhus/slugify';
import { describe, expect, it } from 'vitest';
import { slugOf } from '../../src/shared/slug.ts';

describe('slugOf', () => {
  it('makes the slug slugify makes, plain words or not', () => {
    const texts = [
      'Dana Reyes',
      'dana reyes 3f9a12',
      '  Dana   Reyes  ',
      'Dana',
      'A B C',
      'DanaReyes',
      'DANA REYES',
      'Dana R2D2',
      'APIs Team',
      'FOO360 bar',
      'x1Y',
      'Zoë Ängström',
      "Conway's Law",
      'Tom & Jerry',
      'Dana-Reyes',
      'dana_reyes',
      '',
      '   ',
      '123 456',
      'O Neil',
    ];
    for (const text of texts) {
      expect(slugOf(text, 80), text).toBe(slugify(text).slice(0, 80).replace(/-+$/, ''));
    }
  });

  it('cuts at the length and never ends in a dash', () => {
    expect(slugOf('Dana Reyes', 5)).toBe('dana');
    expect(slugOf('Dana Reyes', 4)).toBe('dana');
  });
});
