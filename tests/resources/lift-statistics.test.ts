import betaCdf from '@stdlib/stats-base-dists-beta-cdf';
import betaPdf from '@stdlib/stats-base-dists-beta-pdf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chanceToBeat,
  chiSquarePValue,
  newcombeInterval,
  type Proportion,
  wilsonInterval,
  Z_95,
} from '../../src/resources/sessions/statistics.ts';

const of = (successes: number, trials: number): Proportion => ({ successes, trials });

describe('Wilson score interval', () => {
  // Newcombe RG (1998a), Two-sided confidence intervals for the single proportion: comparison of
  // seven methods. Stat Med 17:857-872, Table I, method 3 (score interval without correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [29, 29, 0.883, 1],
  ])('%i/%i is [%f, %f] as in Newcombe (1998a)', (successes, trials, lower, upper) => {
    const interval = wilsonInterval(of(successes, trials));
    expect(interval.lower).toBeCloseTo(lower, 4);
    expect(interval.upper).toBeCloseTo(upper, 4);
  });

  it('uses the 95 % normal quantile', () => {
    expect(Z_95).toBeCloseTo(1.959963984540054, 12);
  });
});

describe("Newcombe's hybrid score interval for a difference of proportions", () => {
  // Newcombe RG (1998b), Interval estimation for the difference between independent proportions:
  // comparison of eleven methods. Stat Med 17:873-890, Table II, method 10.
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])('%i/%i − %i/%i is [%f, %f] as in Newcombe (1998b)', (a, n, b, m, lower, upper) => {
    const interval = newcombeInterval(of(a, n), of(b, m));
    expect(interval.lower).toBeCloseTo(lower, 4);
    expect(interval.upper).toBeCloseTo(upper, 4);
  });

  /** Two arms with at least one trial each. */
  const arm = fc
    .integer({ min: 1, max: 5_000 })
    .chain((trials) =>
      fc.record({ trials: fc.constant(trials), successes: fc.integer({ min: 0, max: trials }) }),
    );

  it('contains the observed difference, within [−1, 1]', () => {
    fc.assert(
      fc.property(arm, arm, (a, b) => {
        const difference = a.successes / a.trials - b.successes / b.trials;
        const interval = newcombeInterval(a, b);
        expect(interval.lower).toBeLessThanOrEqual(difference + 1e-12);
        expect(interval.upper).toBeGreaterThanOrEqual(difference - 1e-12);
        // Clipped: not even rounding puts a bound past a difference of two rates.
        expect(interval.lower).toBeGreaterThanOrEqual(-1);
        expect(interval.upper).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('shrinks with more data at the same rates', () => {
    fc.assert(
      fc.property(arm, arm, fc.integer({ min: 2, max: 20 }), (a, b, k) => {
        const width = ({ lower, upper }: { lower: number; upper: number }) => upper - lower;
        const more = (p: Proportion) => of(p.successes * k, p.trials * k);
        expect(width(newcombeInterval(more(a), more(b)))).toBeLessThan(width(newcombeInterval(a, b)));
      }),
    );
  });

  it('is symmetric under swapping the arms, with the sign flipped', () => {
    fc.assert(
      fc.property(arm, arm, (a, b) => {
        const forward = newcombeInterval(a, b);
        const backward = newcombeInterval(b, a);
        expect(backward.lower).toBeCloseTo(-forward.upper, 12);
        expect(backward.upper).toBeCloseTo(-forward.lower, 12);
      }),
    );
  });
});

/**
 * P(θa > θb) for Beta posteriors by numerical integration: ∫ f_b(x) · (1 − F_a(x)) dx with
 * composite Simpson's rule over the span where f_b has mass (its mean ± 14 standard deviations),
 * with 200,000 intervals: a reference computed a wholly different way from the closed-form sum.
 */
function integratedChance(a: Proportion, b: Proportion): number {
  const [alphaA, betaA] = [1 + a.successes, 1 + a.trials - a.successes];
  const [alphaB, betaB] = [1 + b.successes, 1 + b.trials - b.successes];
  const mean = alphaB / (alphaB + betaB);
  const sd = Math.sqrt((alphaB * betaB) / ((alphaB + betaB) ** 2 * (alphaB + betaB + 1)));
  const from = Math.max(0, mean - 14 * sd);
  const to = Math.min(1, mean + 14 * sd);
  const intervals = 200_000;
  const h = (to - from) / intervals;
  const f = (x: number) => betaPdf(x, alphaB, betaB) * (1 - betaCdf(x, alphaA, betaA));
  let sum = f(from) + f(to);
  for (let i = 1; i < intervals; i++) sum += (i % 2 === 0 ? 2 : 4) * f(from + i * h);
  return (sum * h) / 3;
}

describe('chance to beat the baseline (Beta-Binomial, uniform priors)', () => {
  it('is 2/3 and 5/6 in the cases that integrate by hand', () => {
    // Beta(2,1) over Beta(1,1): ∫ 2x · x dx = 2/3. Beta(2,1) over Beta(1,2): ∫ 2x · (2x − x²) dx = 5/6.
    expect(chanceToBeat(of(1, 1), of(0, 0))).toBeCloseTo(2 / 3, 12);
    expect(chanceToBeat(of(1, 1), of(0, 1))).toBeCloseTo(5 / 6, 12);
  });

  it.each([
    [of(120, 1000), of(100, 1000)],
    [of(12, 40), of(30, 90)],
    [of(230, 960), of(41, 240)],
    [of(3, 500), of(9, 480)],
    [of(4_999, 100_000), of(5_100, 100_000)],
    // Past the exact sum's bound: the normal approximation of both posteriors.
    [of(60_500, 1_000_000), of(60_000, 1_000_000)],
  ])('%o over %o agrees with a high-precision numerical integration', (a, b) => {
    expect(chanceToBeat(a, b)).toBeCloseTo(integratedChance(a, b), 5);
  });

  it('is one half for equal arms, and complementary when the arms swap', () => {
    const arm = fc
      .integer({ min: 0, max: 3_000 })
      .chain((trials) =>
        fc.record({ trials: fc.constant(trials), successes: fc.integer({ min: 0, max: trials }) }),
      );
    fc.assert(
      fc.property(arm, arm, (a, b) => {
        expect(chanceToBeat(a, a)).toBeCloseTo(0.5, 9);
        expect(chanceToBeat(a, b) + chanceToBeat(b, a)).toBeCloseTo(1, 9);
      }),
    );
  });
});

describe('chi-square goodness of fit (the sample-ratio-mismatch check)', () => {
  it('finds the mismatch of the published example: 821,588 vs 815,482 on a 50/50 split, p ≈ 1.8e-6', () => {
    // Kohavi, Tang & Xu (2020), Trustworthy Online Controlled Experiments, chapter 21.
    const p = chiSquarePValue([821_588, 815_482], [0.5, 0.5]);
    expect(p).toBeGreaterThan(1.7e-6);
    expect(p).toBeLessThan(1.9e-6);
  });

  it.each([
    // SciPy's scipy.stats.chisquare documentation examples.
    [[16, 18, 16, 14, 12, 12], [1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6], 0.84914503608460956],
    [[16, 18, 16, 14, 12, 12], [16 / 88, 16 / 88, 16 / 88, 16 / 88, 16 / 88, 8 / 88], 0.62338762774958223],
  ])('%o against shares %o has p = %f', (observed, shares, p) => {
    expect(chiSquarePValue(observed, shares)).toBeCloseTo(p, 10);
  });

  it('is 1 for a split exactly as expected', () => {
    expect(chiSquarePValue([800, 200], [0.8, 0.2])).toBe(1);
  });
});
