import { type Interval, type Proportion, withinRates } from './statistics.ts';

/**
 * The always-valid side of lift: a confidence sequence for the difference of two rates that may be
 * read after every session and still holds its 95 % (the normal-mixture boundary of Howard,
 * Ramdas, McAuliffe and Sekhon, 2021, "Time-uniform, nonparametric, nonasymptotic confidence
 * sequences"), as docs/analytics.md and the spec's §8 write it.
 */

/** The sequence's error rate: it excludes the true lift at any time in at most 5 % of experiments. */
export const SEQUENTIAL_ALPHA = 0.05;

/** `sequentialTuning`: the sessions (both arms) at which the boundary is tightest, by default. */
export const DEFAULT_SEQUENTIAL_TUNING = 5_000;

/** `minimumLift`: the smallest absolute lift worth waiting for, by default 2 percentage points. */
export const DEFAULT_MINIMUM_LIFT = 0.02;

/** What the boundary needs of the two arms: the observed difference and its variance per session. */
interface Spread {
  difference: number;
  /** σ² = v·N: the variance of one session's share of the difference. */
  perSession: number;
  /** N, both arms' sessions. */
  sessions: number;
}

/** The spread of a − b; null while an arm is empty or both arms' variance v is 0. */
function spreadOf(a: Proportion, b: Proportion): Spread | null {
  if (a.trials === 0 || b.trials === 0) return null;
  const pa = a.successes / a.trials;
  const pb = b.successes / b.trials;
  const v = (pa * (1 - pa)) / a.trials + (pb * (1 - pb)) / b.trials;
  if (v === 0) return null;
  const sessions = a.trials + b.trials;
  return { difference: pa - pb, perSession: v * sessions, sessions };
}

/**
 * ρ, the variance of the mixture over the drift: chosen so that the boundary is tightest when the
 * intrinsic time V reaches σ²·S, S sessions (Howard et al. 2021, the ρ that minimizes the boundary
 * at a given V, in its closed-form approximation).
 */
function mixtureVariance(perSession: number, tuning: number, alpha: number): number {
  const logInverseAlpha = Math.log(1 / alpha);
  return (perSession * tuning) / (2 * logInverseAlpha + Math.log(1 + 2 * logInverseAlpha));
}

/** B, the sequence's half-width on the scale of the rates after `sessions` sessions. */
function halfWidth(perSession: number, sessions: number, rho: number, alpha: number): number {
  const intrinsicTime = perSession * sessions;
  return (
    Math.sqrt((intrinsicTime + rho) * Math.log((intrinsicTime + rho) / (rho * alpha * alpha))) / sessions
  );
}

/**
 * The 95 % confidence sequence of a's rate minus b's: {p_a − p_b − B, p_a − p_b + B}, within
 * [−1, 1]. Null while an arm is empty or v is 0 (no conversion or no failure in either arm), as the
 * spec says.
 */
export function confidenceSequence(
  a: Proportion,
  b: Proportion,
  tuning = DEFAULT_SEQUENTIAL_TUNING,
  alpha = SEQUENTIAL_ALPHA,
): Interval | null {
  const spread = spreadOf(a, b);
  if (!spread) return null;
  const rho = mixtureVariance(spread.perSession, tuning, alpha);
  const half = halfWidth(spread.perSession, spread.sessions, rho, alpha);
  return withinRates({ lower: spread.difference - half, upper: spread.difference + half });
}

export type Decision = 'personalized_wins' | 'baseline_wins' | 'keep_running';

/** What the sequence lets one act on: a winner once it excludes zero, else keep running. */
export function decisionOf(sequence: Interval | null): Decision {
  if (sequence && sequence.lower > 0) return 'personalized_wins';
  if (sequence && sequence.upper < 0) return 'baseline_wins';
  return 'keep_running';
}

/**
 * About how many more sessions (both arms together) before the sequence would exclude zero, if the
 * rates and the split stay as observed and the observed lift is the true one; when the observed
 * lift is smaller than `minimumLift`, a lift of `minimumLift` is waited for instead. The boundary
 * is the same one, with the same ρ; its half-width only shrinks with more sessions (its square is
 * (x + 1)(ln(x + 1) + 2 ln(1/α))/x² times a constant, x = V/ρ, which falls everywhere, to 0), so the
 * first session count at which it fits under the lift is found by doubling, then bisection (to the
 * session, or to a few parts in 10^15 past 2^51 sessions, where doubles no longer count every one).
 * 0 means a lift of `minimumLift` would already show: the true lift is likely smaller. Null where
 * the sequence is, once it has decided (nothing to wait for), and for a wait no finite count ends
 * (no lift observed and a `minimumLift` of 0, which the API does not take).
 */
export function sessionsToDecision(
  a: Proportion,
  b: Proportion,
  minimumLift = DEFAULT_MINIMUM_LIFT,
  tuning = DEFAULT_SEQUENTIAL_TUNING,
  alpha = SEQUENTIAL_ALPHA,
): number | null {
  const spread = spreadOf(a, b);
  if (!spread) return null;
  const target = Math.max(Math.abs(spread.difference), minimumLift);
  const rho = mixtureVariance(spread.perSession, tuning, alpha);
  const fits = (sessions: number) => halfWidth(spread.perSession, sessions, rho, alpha) < target;
  if (halfWidth(spread.perSession, spread.sessions, rho, alpha) < Math.abs(spread.difference)) return null;
  if (fits(spread.sessions)) return 0;
  let below = spread.sessions;
  let above = spread.sessions * 2;
  while (!fits(above)) {
    if (!Number.isFinite(above)) return null;
    below = above;
    above *= 2;
  }
  while (above - below > Math.max(1, above * 4 * Number.EPSILON)) {
    const middle = Math.floor((below + above) / 2);
    if (fits(middle)) above = middle;
    else below = middle;
  }
  return above - spread.sessions;
}
