import betaln from '@stdlib/math-base-special-betaln';
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

/**
 * The statistics of a holdout: two arms, each a count of trials (sessions) and of successes
 * (conversions). Formulas and sources are in docs/analytics.md.
 */

export interface Proportion {
  trials: number;
  successes: number;
}

export interface Interval {
  lower: number;
  upper: number;
}

/**
 * An interval of a difference of two rates, kept within [−1, 1] where every such difference lies:
 * with few sessions a bound may fall beyond it (by rounding, or by the width of an always-valid
 * interval), which would only say "anything possible" in a figure no one can read.
 */
export function withinRates({ lower, upper }: Interval): Interval {
  return { lower: Math.max(-1, lower), upper: Math.min(1, upper) };
}

/** The two-sided 95 % normal quantile, 1.959963984540054. */
export const Z_95 = normalQuantile(0.975, 0, 1);

/** Wilson's score interval for one proportion (Wilson 1927); needs at least one trial. */
export function wilsonInterval({ trials: n, successes }: Proportion, z = Z_95): Interval {
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At p = 0 or 1 one bound is the observed rate exactly; rounding must not move it past.
  return { lower: Math.max(0, Math.min(p, centre - half)), upper: Math.min(1, Math.max(p, centre + half)) };
}

/**
 * Newcombe's hybrid score interval for the difference of two proportions, a − b (Newcombe 1998,
 * method 10): each arm's Wilson interval, combined by the square-and-add rule, within [−1, 1].
 */
export function newcombeInterval(a: Proportion, b: Proportion, z = Z_95): Interval {
  const pa = a.successes / a.trials;
  const pb = b.successes / b.trials;
  const wa = wilsonInterval(a, z);
  const wb = wilsonInterval(b, z);
  const difference = pa - pb;
  return withinRates({
    lower: difference - Math.sqrt((pa - wa.lower) ** 2 + (wb.upper - pb) ** 2),
    upper: difference + Math.sqrt((wa.upper - pa) ** 2 + (pb - wb.lower) ** 2),
  });
}

/** A Beta posterior's parameters: Beta(1 + successes, 1 + failures), from a uniform prior. */
function posterior({ trials, successes }: Proportion): { alpha: number; beta: number } {
  return { alpha: 1 + successes, beta: 1 + trials - successes };
}

/**
 * Terms of the exact sum beyond which the normal approximation is used instead: by then both
 * posteriors are so narrow that the two agree to within about 1e-6, and the sum would cost more
 * than a millisecond.
 */
const EXACT_TERMS = 50_000;

/**
 * P(X > Y) for X ~ Beta(αx, βx), Y ~ Beta(αy, βy), with integer αx: the closed form
 * Σ_{i=0}^{αx−1} B(αy+i, βx+βy) / ((βx+i) · B(1+i, βx) · B(αy, βy)) (Evan Miller, 2015). Each term
 * follows from the previous one by the ratio (αy+i)(βx+i) / ((αy+βx+βy+i)(1+i)), so only the first
 * needs Beta functions; the sum runs in log space, where a term too small for a double is nothing.
 */
function exactChanceAbove(x: { alpha: number; beta: number }, y: { alpha: number; beta: number }): number {
  let logTerm =
    betaln(y.alpha, x.beta + y.beta) - Math.log(x.beta) - betaln(1, x.beta) - betaln(y.alpha, y.beta);
  let total = 0;
  for (let i = 0; i < x.alpha; i++) {
    total += Math.exp(logTerm);
    logTerm += Math.log(((y.alpha + i) * (x.beta + i)) / ((y.alpha + x.beta + y.beta + i) * (1 + i)));
  }
  return Math.min(1, Math.max(0, total));
}

function normalChanceAbove(x: { alpha: number; beta: number }, y: { alpha: number; beta: number }): number {
  const moments = ({ alpha, beta }: { alpha: number; beta: number }) => ({
    mean: alpha / (alpha + beta),
    variance: (alpha * beta) / ((alpha + beta) ** 2 * (alpha + beta + 1)),
  });
  const mx = moments(x);
  const my = moments(y);
  return normalCdf(mx.mean - my.mean, 0, Math.sqrt(mx.variance + my.variance));
}

/**
 * The Bayesian chance that arm `a`'s true rate is above arm `b`'s, with a uniform Beta(1, 1) prior on
 * each: P(θa > θb) under the Beta posteriors. Summed over the arm with fewer successes (the other
 * side is its complement), so its cost is bounded by EXACT_TERMS.
 */
export function chanceToBeat(a: Proportion, b: Proportion): number {
  const pa = posterior(a);
  const pb = posterior(b);
  if (Math.min(pa.alpha, pb.alpha) > EXACT_TERMS) return normalChanceAbove(pa, pb);
  return pa.alpha <= pb.alpha ? exactChanceAbove(pa, pb) : 1 - exactChanceAbove(pb, pa);
}

/**
 * Pearson's chi-square goodness-of-fit test of observed counts against expected shares (which sum
 * to 1); answers its p-value, with as many degrees of freedom as shares less one. Every share must
 * be above 0 and there must be at least one observation.
 */
export function chiSquarePValue(observed: number[], shares: number[]): number {
  const total = observed.reduce((sum, count) => sum + count, 0);
  const statistic = observed.reduce((sum, count, i) => {
    const expected = total * (shares[i] as number);
    return sum + (count - expected) ** 2 / expected;
  }, 0);
  return 1 - chisquareCdf(statistic, shares.length - 1);
}
