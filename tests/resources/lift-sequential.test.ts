import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confidenceSequence,
  decisionOf,
  sessionsToDecision,
} from '../../src/resources/sessions/sequential.ts';
import { newcombeInterval, type Proportion } from '../../src/resources/sessions/statistics.ts';
import { seededRandom } from '../../src/shared/seeded-random.ts';

const of = (successes: number, trials: number): Proportion => ({ successes, trials });

/**
 * The reference, written out from the paper rather than taken from the code under test. Howard,
 * Ramdas, McAuliffe and Sekhon (2021), the normal-mixture boundary: for a sum S_t with variance
 * process V_t, sqrt((V + ρ) · log((V + ρ)/(ρ α²))) bounds |S_t| at every t at once with probability
 * at least 1 − α: it is where the mixture martingale √(ρ/(V + ρ)) · exp(S²/(2(V + ρ))) reaches
 * 1/α, which by Ville's inequality it ever does with probability at most α. Here S_N = N · (difference of rates), V = σ² N with σ² the
 * variance of one session's contribution, ρ tuned for V = σ² S by the closed form of the paper's
 * optimal-ρ approximation; dividing by N gives the half-width on the scale of the rates.
 */
function referenceHalfWidth(
  p1: number,
  n1: number,
  p2: number,
  n2: number,
  tuning: number,
  alpha = 0.05,
): number {
  const sessions = n1 + n2;
  const varianceOfDifference = (p1 * (1 - p1)) / n1 + (p2 * (1 - p2)) / n2;
  const sigmaSquared = varianceOfDifference * sessions;
  const intrinsicTime = sigmaSquared * sessions;
  const l = Math.log(1 / alpha);
  const rho = (sigmaSquared * tuning) / (2 * l + Math.log(1 + 2 * l));
  const squared = (intrinsicTime + rho) * Math.log((intrinsicTime + rho) / (rho * alpha ** 2));
  return Math.sqrt(squared) / sessions;
}

describe('the normal-mixture confidence sequence', () => {
  it('is 2.5 ± 3.31 points for 300/2,000 against 250/2,000 at S = 5,000, worked by hand', () => {
    // v = 0.15·0.85/2000 + 0.125·0.875/2000 = 1.184375e-4; σ² = v·4000 = 0.47375; V = σ²·4000 = 1895;
    // ρ = 0.47375·5000 / (2 ln 20 + ln(1 + 2 ln 20)) = 2368.75 / 7.9361546 = 298.47579;
    // B = √((1895 + 298.47579) · ln(2193.47579 / (298.47579 · 0.05²))) / 4000 = 0.033088081.
    const sequence = confidenceSequence(of(300, 2000), of(250, 2000), 5000);
    expect(sequence?.lower).toBeCloseTo(0.025 - 0.033088081, 8);
    expect(sequence?.upper).toBeCloseTo(0.025 + 0.033088081, 8);
    expect(decisionOf(sequence)).toBe('keep_running');
  });

  it.each([
    [300, 2000, 250, 2000, 5000],
    [30, 1000, 45, 1000, 100],
    [120, 1000, 100, 1000, 5000],
    [4_200, 40_000, 3_900, 38_000, 1_000_000],
    [60, 100, 10, 100, 5000],
    [6000, 20_000, 1500, 5000, 10_000_000],
  ])('%i/%i − %i/%i at S = %i agrees with the paper’s boundary', (c1, n1, c2, n2, tuning) => {
    const sequence = confidenceSequence(of(c1, n1), of(c2, n2), tuning);
    const difference = c1 / n1 - c2 / n2;
    const half = referenceHalfWidth(c1 / n1, n1, c2 / n2, n2, tuning);
    expect(sequence?.lower).toBeCloseTo(difference - half, 12);
    expect(sequence?.upper).toBeCloseTo(difference + half, 12);
  });

  it('is clipped to [−1, 1] where the boundary passes it, and still decides by its bounds', () => {
    // The 5 against 1 session: 1/5 against 1/1, a lift of −80 points ± 4.51.
    const raw = referenceHalfWidth(0.2, 5, 1, 1, 5000);
    expect(-0.8 - raw).toBeLessThan(-5);
    expect(confidenceSequence(of(1, 5), of(1, 1), 5000)).toEqual({ lower: -1, upper: 1 });
    // 90/100 against 10/100: 0.8 ± 0.216, clipped above only, and a decision all the same.
    const sequence = confidenceSequence(of(90, 100), of(10, 100), 5000);
    expect(0.8 + referenceHalfWidth(0.9, 100, 0.1, 100, 5000)).toBeGreaterThan(1);
    expect(sequence?.lower).toBeCloseTo(0.8 - referenceHalfWidth(0.9, 100, 0.1, 100, 5000), 12);
    expect(sequence?.upper).toBe(1);
    expect(decisionOf(sequence)).toBe('personalized_wins');
    expect(confidenceSequence(of(10, 100), of(90, 100), 5000)?.lower).toBe(-1);
  });

  it('is null while an arm is empty or neither arm varies, and then keeps running', () => {
    expect(confidenceSequence(of(0, 0), of(3, 10))).toBeNull();
    expect(confidenceSequence(of(3, 10), of(0, 0))).toBeNull();
    expect(confidenceSequence(of(0, 10), of(0, 20))).toBeNull();
    expect(confidenceSequence(of(10, 10), of(0, 20))).toBeNull();
    expect(decisionOf(null)).toBe('keep_running');
  });

  it('decides by where zero lies', () => {
    expect(decisionOf({ lower: 0.001, upper: 0.04 })).toBe('personalized_wins');
    expect(decisionOf({ lower: -0.04, upper: -0.001 })).toBe('baseline_wins');
    expect(decisionOf({ lower: -0.01, upper: 0.03 })).toBe('keep_running');
  });

  const arm = fc
    .integer({ min: 1, max: 100_000 })
    .chain((trials) =>
      fc.record({ trials: fc.constant(trials), successes: fc.integer({ min: 0, max: trials }) }),
    );

  it('narrows as sessions come at the same rates, and swaps sign with the arms', () => {
    fc.assert(
      fc.property(
        arm,
        arm,
        fc.integer({ min: 2, max: 50 }),
        fc.integer({ min: 100, max: 10_000_000 }),
        (a, b, k, tuning) => {
          const sequence = confidenceSequence(a, b, tuning);
          fc.pre(sequence !== null);
          const more = confidenceSequence(
            of(a.successes * k, a.trials * k),
            of(b.successes * k, b.trials * k),
            tuning,
          );
          const width = (interval: { lower: number; upper: number } | null) =>
            interval ? interval.upper - interval.lower : 0;
          // Nested in the earlier one, and narrower unless both are clipped to the whole of [−1, 1].
          expect(more?.lower).toBeGreaterThanOrEqual(sequence?.lower as number);
          expect(more?.upper).toBeLessThanOrEqual(sequence?.upper as number);
          if (width(more) < 2) expect(width(more)).toBeLessThan(width(sequence));
          expect(sequence?.lower).toBeGreaterThanOrEqual(-1);
          expect(sequence?.upper).toBeLessThanOrEqual(1);
          const swapped = confidenceSequence(b, a, tuning);
          expect(swapped?.lower).toBeCloseTo(-(sequence?.upper ?? 0), 12);
        },
      ),
    );
  });
});

describe('sessions to a decision', () => {
  /**
   * Checks the answer against the reference boundary directly: with the rates and the split kept,
   * the reference half-width is under the lift waited for at N + answer sessions and not at one
   * session fewer.
   */
  function expectFirstToFit(
    personalized: Proportion,
    baseline: Proportion,
    minimumLift: number,
    tuning: number,
  ) {
    const more = sessionsToDecision(personalized, baseline, minimumLift, tuning);
    expect(more).not.toBeNull();
    const p1 = personalized.successes / personalized.trials;
    const p2 = baseline.successes / baseline.trials;
    const now = personalized.trials + baseline.trials;
    const share = personalized.trials / now;
    const target = Math.max(Math.abs(p1 - p2), minimumLift);
    const halfAt = (sessions: number) =>
      referenceHalfWidth(p1, sessions * share, p2, sessions * (1 - share), tuning);
    expect(halfAt(now + (more as number))).toBeLessThan(target);
    if ((more as number) > 0) expect(halfAt(now + (more as number) - 1)).toBeGreaterThanOrEqual(target);
    return more as number;
  }

  it('waits for a lift of the observed size while it is at least minimumLift', () => {
    // 12 % against 10 %, 1,000 sessions each: a 2-point lift the sequence cannot yet tell from zero.
    const more = expectFirstToFit(of(120, 1000), of(100, 1000), 0.02, 5000);
    expect(more).toBeGreaterThan(5_000);
    expect(more).toBeLessThan(30_000);
    // A 4-point lift needs roughly a quarter as many sessions in all.
    const bigger = expectFirstToFit(of(140, 1000), of(100, 1000), 0.02, 5000);
    expect(bigger).toBeLessThan(more / 2);
    expectFirstToFit(of(30, 900), of(11, 100), 0.005, 200_000);
  });

  it('waits for minimumLift while the observed lift is smaller, and answers 0 once that would already show', () => {
    const even = expectFirstToFit(of(100, 1000), of(100, 1000), 0.02, 5000);
    expect(even).toBeGreaterThan(0);
    expect(expectFirstToFit(of(100, 1000), of(100, 1000), 0.05, 5000)).toBeLessThan(even);
    expect(expectFirstToFit(of(5000, 50_000), of(5010, 50_000), 0.02, 5000)).toBe(0);
  });

  it('is null once the sequence has decided and while it is null', () => {
    expect(sessionsToDecision(of(300, 1000), of(100, 1000))).toBeNull();
    expect(sessionsToDecision(of(100, 1000), of(300, 1000))).toBeNull();
    expect(sessionsToDecision(of(0, 1000), of(0, 1000))).toBeNull();
    expect(sessionsToDecision(of(0, 0), of(10, 100))).toBeNull();
    // No lift observed and none waited for: no count of sessions would ever decide.
    expect(sessionsToDecision(of(1, 2), of(1, 2), 0)).toBeNull();
  });

  it('is a number, however large, while the sequence keeps running', () => {
    // A lift of a billionth of a point, waited for: about 4.5·10^19 sessions, counted to 15 digits.
    const far = sessionsToDecision(of(1, 2), of(1, 2), 1e-9) as number;
    expect(far).toBeGreaterThan(1e19);
    const p = 0.5;
    const halfAt = (sessions: number) => referenceHalfWidth(p, sessions / 2, p, sessions / 2, 5000);
    expect(halfAt(4 + far)).toBeLessThan(1e-9);
    expect(halfAt((4 + far) * (1 - 1e-14))).toBeGreaterThanOrEqual(1e-9);
    // The 5 against 1 session (1/5 against 1/1): a number, not an answer "too far to say".
    expect(sessionsToDecision(of(1, 5), of(1, 1))).toBeGreaterThan(0);
  });
});

/**
 * A Binomial(n, p) draw by counting geometric gaps between successes (Devroye 1986, the second
 * waiting-time method): exact, and its cost grows with n·p, not n.
 */
function binomial(random: () => number, n: number, p: number): number {
  const logFailure = Math.log(1 - p);
  let successes = 0;
  let position = 0;
  for (;;) {
    position += Math.floor(Math.log(1 - random()) / logFailure) + 1;
    if (position > n) return successes;
    successes++;
  }
}

describe('peeking every day at A/A experiments (no true lift)', () => {
  const EXPERIMENTS = 2_000;
  const PEEKS = 60;

  /**
   * Each experiment draws a conversion rate of 3-30 % shared by both arms and a traffic of 50-2,000
   * sessions a day per arm, then looks every day for 60 days at what it has so far: a false win is
   * any look at which the interval excludes zero.
   */
  function simulate(seed: number) {
    const random = seededRandom(seed);
    let sequenceFalseWins = 0;
    let fixedFalseWins = 0;
    for (let experiment = 0; experiment < EXPERIMENTS; experiment++) {
      const rate = 0.03 + random() * 0.27;
      const daily = 50 + Math.floor(random() * 1951);
      const a = of(0, 0);
      const b = of(0, 0);
      let sequenceExcluded = false;
      let fixedExcluded = false;
      for (let day = 0; day < PEEKS; day++) {
        a.trials += daily;
        b.trials += daily;
        a.successes += binomial(random, daily, rate);
        b.successes += binomial(random, daily, rate);
        const sequence = confidenceSequence(a, b);
        if (sequence && decisionOf(sequence) !== 'keep_running') sequenceExcluded = true;
        const fixed = newcombeInterval(a, b);
        if (fixed.lower > 0 || fixed.upper < 0) fixedExcluded = true;
      }
      if (sequenceExcluded) sequenceFalseWins++;
      if (fixedExcluded) fixedFalseWins++;
    }
    return { sequence: sequenceFalseWins / EXPERIMENTS, fixed: fixedFalseWins / EXPERIMENTS };
  }

  it('declares a false winner in at most 5 % of experiments with the sequence, far more with the fixed interval', () => {
    const started = performance.now();
    const rates = simulate(20_260_127);
    // The binomial margin of a 5 % rate over 2,000 experiments: three standard errors, 1.46 points.
    const margin = 3 * Math.sqrt((0.05 * 0.95) / EXPERIMENTS);
    console.info(
      `A/A, ${EXPERIMENTS} experiments × ${PEEKS} daily peeks: the confidence sequence excluded zero at some peek in ${(rates.sequence * 100).toFixed(2)} % of them, the fixed 95 % interval in ${(rates.fixed * 100).toFixed(2)} % (${Math.round(performance.now() - started)} ms)`,
    );
    expect(rates.sequence).toBeLessThanOrEqual(0.05 + margin);
    expect(rates.fixed).toBeGreaterThan(0.15);
    expect(rates.fixed).toBeGreaterThan(3 * rates.sequence);
  });
});
