import type { TenantDb } from '../../db/tenant-db.ts';
import { DAY_MS, type Period, periodOf, splitByRollups } from './period.ts';
import type { AudienceLift } from './schema.ts';
import {
  confidenceSequence,
  DEFAULT_MINIMUM_LIFT,
  DEFAULT_SEQUENTIAL_TUNING,
  decisionOf,
  sessionsToDecision,
} from './sequential.ts';
import { chanceToBeat, chiSquarePValue, newcombeInterval, type Proportion } from './statistics.ts';
import { armDailyTotals, armSessionTotals } from './store.ts';
import type { Arm, LiftArm } from './tables.ts';

/**
 * The holdout share of an audience of the page, 0-50; not found when the page or the audience is
 * not. The audiences resource answers; the server wires it in (src/wiring.ts).
 */
export type AudienceHoldout = (db: TenantDb, pageId: string, audienceId: string) => Promise<number>;

/** Below these, in either arm, a difference is too likely to be noise to act on. */
const ENOUGH_SESSIONS = 100;
const ENOUGH_CONVERSIONS = 10;
/** The p-value under which a split counts as a mismatch: strict, since the check runs on every read. */
const SRM_THRESHOLD = 0.001;

/** The sequence's query parameters (docs/analytics.md). */
interface SequentialQuery {
  sequentialTuning?: number;
  minimumLift?: number;
}

type Counts = { sessions: number; conversions: number };
type Day = Record<Arm, Counts>;

const none = (): Counts => ({ sessions: 0, conversions: 0 });

/** Every UTC day the period touches, from its first to the one holding its last millisecond. */
function emptyDays({ start, end }: Period): Map<number, Day> {
  const days = new Map<number, Day>();
  for (let day = Math.floor(start / DAY_MS); day <= Math.floor((end - 1) / DAY_MS); day++) {
    days.set(day, { personalized: none(), baseline: none() });
  }
  return days;
}

/** Adds `counts` to the day's arm; sessions outside the lift (`none`) count in analytics only. */
function addTo(days: Map<number, Day>, day: number, arm: LiftArm, counts: Counts): void {
  if (arm === 'none') return;
  const into = days.get(day)?.[arm];
  if (!into) return;
  into.sessions += Number(counts.sessions);
  into.conversions += Number(counts.conversions ?? 0);
}

/**
 * Sessions and conversions per UTC day and arm: whole days from the daily rollups, the other whole
 * hours from the hourly ones (the database groups them into their days), and the partial hours at
 * either end from the sessions (each inside one hour, so inside one day).
 */
async function dailyCounts(db: TenantDb, audienceId: string, period: Period): Promise<Map<number, Day>> {
  const days = emptyDays(period);
  const parts = splitByRollups(period);
  const edgeCounts = async (span: Period) => {
    const day = Math.floor(span.start / DAY_MS);
    return (await armSessionTotals(db, audienceId, span)).map((row) => ({ ...row, day }));
  };
  const counts = await Promise.all([
    ...parts.days.map((span) => armDailyTotals(db, 'daily', audienceId, span, DAY_MS)),
    ...parts.hours.map((span) => armDailyTotals(db, 'hourly', audienceId, span, DAY_MS)),
    ...parts.sessions.map(edgeCounts),
  ]);
  for (const row of counts.flat()) addTo(days, row.day, row.arm, row);
  return days;
}

const plus = (a: Counts, b: Counts): Counts => ({
  sessions: a.sessions + b.sessions,
  conversions: a.conversions + b.conversions,
});

function total(days: Map<number, Day>, arm: Arm): Counts {
  return [...days.values()].reduce((sum, day) => plus(sum, day[arm]), none());
}

const proportion = (counts: Counts): Proportion => ({
  trials: counts.sessions,
  successes: counts.conversions,
});

/** The sample-ratio check: the observed split against the one the holdout asks for. */
function sampleRatio(personalized: Counts, baseline: Counts, holdoutPercent: number): AudienceLift['srm'] {
  if (holdoutPercent === 0 || personalized.sessions + baseline.sessions === 0) {
    return { pValue: null, mismatch: false };
  }
  const share = holdoutPercent / 100;
  const pValue = chiSquarePValue([personalized.sessions, baseline.sessions], [1 - share, share]);
  return { pValue, mismatch: pValue < SRM_THRESHOLD };
}

/**
 * The sessions an arm still lacks for `enoughData`: max(0, 100 − sessions, 10 − conversions), a
 * conversion taking at least a session.
 */
function stillNeeded(arm: Counts): number {
  return Math.max(0, ENOUGH_SESSIONS - arm.sessions, ENOUGH_CONVERSIONS - arm.conversions);
}

/**
 * What may be read at any time: the always-valid sequence, its decision and the wait for one, which
 * is never shorter than what enoughData still needs, so that "not enough data yet" and the wait
 * never disagree.
 */
function sequential(personalized: Counts, baseline: Counts, tuning: Required<SequentialQuery>) {
  const [a, b] = [proportion(personalized), proportion(baseline)];
  const sequence = confidenceSequence(a, b, tuning.sequentialTuning);
  const wait = sessionsToDecision(a, b, tuning.minimumLift, tuning.sequentialTuning);
  return {
    confidenceSequence: sequence,
    decision: decisionOf(sequence),
    sessionsToDecision:
      wait === null ? null : Math.max(wait, stillNeeded(personalized) + stillNeeded(baseline)),
  };
}

function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The days, each with the always-valid sequence of the period's sessions up to its end: read day
 * after day, it narrows towards the decision.
 */
function dailySeries(days: Map<number, Day>, tuning: number): AudienceLift['daily'] {
  let sofar: Day = { personalized: none(), baseline: none() };
  return [...days.entries()].map(([day, arms]) => {
    sofar = {
      personalized: plus(sofar.personalized, arms.personalized),
      baseline: plus(sofar.baseline, arms.baseline),
    };
    const sequence = confidenceSequence(proportion(sofar.personalized), proportion(sofar.baseline), tuning);
    return { date: isoDate(day), ...arms, confidenceSequence: sequence };
  });
}

/** Every fixed-horizon figure comparing the arms; null where an arm has no session to compute it from. */
function compare(personalized: Counts, baseline: Counts) {
  if (personalized.sessions === 0 || baseline.sessions === 0) {
    return {
      absoluteLift: null,
      relativeLift: null,
      confidenceInterval: { lower: null, upper: null },
      chanceToBeatBaseline: null,
    };
  }
  const personalizedRate = personalized.conversions / personalized.sessions;
  const baselineRate = baseline.conversions / baseline.sessions;
  const absoluteLift = personalizedRate - baselineRate;
  return {
    absoluteLift,
    relativeLift: baselineRate === 0 ? null : absoluteLift / baselineRate,
    confidenceInterval: newcombeInterval(proportion(personalized), proportion(baseline)),
    chanceToBeatBaseline: chanceToBeat(proportion(personalized), proportion(baseline)),
  };
}

const withRate = (counts: Counts) => ({
  ...counts,
  conversionRate: counts.sessions === 0 ? null : counts.conversions / counts.sessions,
});

/**
 * How the audience's personalized page converts against its baseline over sessions that started in
 * [startDate, endDate) (the analytics' period rules), from the rollups kept per arm: its cost grows
 * with the days of the period, not with the sessions.
 */
export async function audienceLift(
  db: TenantDb,
  pageId: string,
  audienceId: string,
  query: { startDate?: string; endDate?: string } & SequentialQuery,
  holdoutOf: AudienceHoldout,
  now = Date.now(),
): Promise<AudienceLift> {
  const period = periodOf(query, now);
  const holdoutPercent = await holdoutOf(db, pageId, audienceId);
  const days = await dailyCounts(db, audienceId, period);
  const personalized = total(days, 'personalized');
  const baseline = total(days, 'baseline');
  const tuning = {
    sequentialTuning: query.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING,
    minimumLift: query.minimumLift ?? DEFAULT_MINIMUM_LIFT,
  };
  return {
    audienceId,
    holdoutPercent,
    personalized: withRate(personalized),
    baseline: withRate(baseline),
    ...compare(personalized, baseline),
    ...sequential(personalized, baseline, tuning),
    srm: sampleRatio(personalized, baseline, holdoutPercent),
    enoughData: stillNeeded(personalized) + stillNeeded(baseline) === 0,
    daily: dailySeries(days, tuning.sequentialTuning),
  };
}
