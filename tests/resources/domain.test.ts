import { describe, expect, it } from 'vitest';
import { canonicalDomain } from '../../src/shared/domain.ts';

describe('canonical account domains', () => {
  it.each([
    ['acme.com', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['www.acme.com', 'acme.com'],
    ['https://www.acme.com:8443/pricing?x=1#top', 'acme.com'],
    ['http://user:pw@shop.acme.co.uk/', 'shop.acme.co.uk'],
    ['acme.com.', 'acme.com'],
    ['  acme.com  ', 'acme.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['www2.acme.com', 'www2.acme.com'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalDomain(input)).toBe(expected);
  });

  it.each(['', 'localhost', '192.168.1.1', 'acme..com', '-acme.com', 'acme_corp.com', 'http://', 'a b.com'])(
    'refuses %j',
    (input) => {
      expect(canonicalDomain(input)).toBeUndefined();
    },
  );
});
