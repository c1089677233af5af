import type { AudienceLift } from '@tailor/client';
import type { ComponentChildren } from 'preact';
import { Link } from '../../router.tsx';
import { count, counted, percent, points, pointsApart, pointsRange } from './numbers.ts';

/** What lift needs of each arm before its figures mean much (docs/analytics.md, `enoughData`). */
const ENOUGH = { sessions: 100, conversions: 10 };

/**
 * The smallest lift worth waiting for, 2 percentage points: asked of the API as `minimumLift`, so
 * that the wait it answers and the lift the view names are the same.
 */
export const MINIMUM_LIFT = 0.02;

type Arm = AudienceLift['personalized'];

/** The arms as the verdict names them: what a marketer calls each. */
const ARM_NAMES = { personalized: 'the personalized page', baseline: 'the baseline' } as const;

export interface Verdict {
  /** win and loss once decided; wait while running; missing while something needed is absent. */
  tone: 'win' | 'loss' | 'wait' | 'missing';
  heading: string;
  body: ComponentChildren;
}

/**
 * "about 200 more visitors": the wait rounded UP to two significant figures, so that it is never
 * below what each arm still needs, which the verdict lists beside it.
 */
function moreVisitors(sessions: number): string {
  if (sessions >= 1e9) return 'over a billion more visitors';
  const step = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(sessions, 1))) - 1);
  return `about ${counted(Math.ceil(sessions / step) * step, 'more visitor')}`;
}

/**
 * What an arm still lacks for `enoughData`, and the visitors that takes at the least: as the API
 * counts it, max(0, 100 − sessions, 10 − conversions).
 */
function shortfall(arm: Arm) {
  const sessions = Math.max(0, ENOUGH.sessions - arm.sessions);
  const conversions = Math.max(0, ENOUGH.conversions - arm.conversions);
  return { sessions, conversions, visitors: Math.max(sessions, conversions) };
}

/** "95 more visitors and 9 more conversions on the personalized page"; null when the arm has enough. */
function stillNeeds(arm: Arm, name: string): string | null {
  const { sessions, conversions } = shortfall(arm);
  const parts = [
    sessions > 0 && counted(sessions, 'more visitor'),
    conversions > 0 && counted(conversions, 'more conversion'),
  ].filter(Boolean);
  return parts.length > 0 ? `${parts.join(' and ')} on ${name}` : null;
}

/** "1 of 5 visitors (20%) converted on the personalized page, 1 of 1 (100%) on the baseline" */
function soFar({ personalized, baseline }: AudienceLift): string {
  const rate = (arm: Arm) => `(${percent(arm.conversionRate)})`;
  return `${count(personalized.conversions)} of ${counted(personalized.sessions, 'visitor')} ${rate(personalized)} converted on the personalized page, ${count(baseline.conversions)} of ${count(baseline.sessions)} ${rate(baseline)} on the baseline`;
}

/** The lift waited for, with its sign; or the minimum either way while the observed one is smaller. */
function waitedFor(lift: AudienceLift): string {
  const observed = lift.absoluteLift ?? 0;
  return Math.abs(observed) >= MINIMUM_LIFT
    ? `today's lift of ${points(observed)}`
    : `a difference of ${pointsApart(MINIMUM_LIFT)} either way`;
}

/** What is missing before anything can be compared: no holdout, no visitor in an arm, no variation. */
function missing(lift: AudienceLift, audienceHref: string): Verdict | null {
  const { personalized, baseline, holdoutPercent } = lift;
  if (holdoutPercent === 0 && baseline.sessions === 0)
    return {
      tone: 'missing',
      heading: 'No holdout, so nothing to compare with',
      body: (
        <p>
          Every visitor of this audience sees the personalized page, so there is no baseline to measure lift
          against. Set a holdout on <Link href={audienceHref}>the audience</Link> (10 to 20 % is usual) and
          come back once visitors have come.
        </p>
      ),
    };
  if (personalized.sessions === 0 && baseline.sessions === 0)
    return {
      tone: 'missing',
      heading: 'No visitors yet',
      body: (
        <p>
          Lift compares the visitors who see the personalized page with the {holdoutPercent} % held out, who
          see the page without personalization. Nobody has visited this audience's page in this period: share
          its link, or choose a longer period above.
        </p>
      ),
    };
  const empty = personalized.sessions === 0 ? 'personalized' : baseline.sessions === 0 ? 'baseline' : null;
  if (empty) {
    const other = empty === 'personalized' ? 'baseline' : 'personalized';
    return {
      tone: 'missing',
      heading:
        empty === 'baseline' ? 'No visitors in the baseline yet' : 'No visitors on the personalized page yet',
      body: (
        <p>
          {capitalized(ARM_NAMES[other])} has had {counted(lift[other].sessions, 'visitor')},{' '}
          {ARM_NAMES[empty]} none yet. Lift compares the two, so it needs at least one visitor on each side.
          With a {holdoutPercent} % holdout, about {holdoutPercent} visitors in 100 see the baseline.
        </p>
      ),
    };
  }
  if (lift.confidenceSequence === null) {
    const none = personalized.conversions + baseline.conversions === 0;
    return {
      tone: 'missing',
      heading: none ? 'No conversions yet' : 'Every visitor converted',
      body: (
        <p>
          {none
            ? `${counted(personalized.sessions, 'visitor')} saw the personalized page and ${count(baseline.sessions)} the baseline, and none of them converted (clicked a call to action or sent a form). Lift compares how often each side converts, so it needs at least one conversion.`
            : `All ${counted(personalized.sessions + baseline.sessions, 'visitor')} on both sides converted, so there is no difference to measure until some do not.`}
        </p>
      ),
    };
  }
  return null;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A decision made by the always-valid interval, said with the lift's sign. */
function decided(lift: AudienceLift, sequence: { lower: number; upper: number }): Verdict {
  const wins = lift.decision === 'personalized_wins';
  const act = lift.enoughData
    ? 'so you can act on it now'
    : 'but on this few visitors one broken day weighs a lot: check the days below before acting';
  return {
    tone: wins ? 'win' : 'loss',
    heading: `${wins ? 'Personalization wins' : 'The baseline wins'}: ${points(lift.absoluteLift)}`,
    body: (
      <p>
        {soFar(lift)}: a lift of {points(lift.absoluteLift)}, and{' '}
        {wins ? `at least ${points(sequence.lower)}` : `at most ${points(sequence.upper)}`} with 95 %
        confidence (the always-valid interval, <span class="lift-range">{pointsRange(sequence)}</span>). That
        interval stays valid however often you look, {act}.
        {!wins &&
          " Visitors convert better without personalization: rework this audience's version, or stop personalizing it."}
      </p>
    ),
  };
}

/** Still running: not enough data yet, no difference worth waiting for, or how long to wait. */
function running(lift: AudienceLift, wait: number): Verdict {
  if (!lift.enoughData) {
    const needs = (['personalized', 'baseline'] as const)
      .map((arm) => stillNeeds(lift[arm], ARM_NAMES[arm]))
      .filter(Boolean);
    const shortest = shortfall(lift.personalized).visitors + shortfall(lift.baseline).visitors;
    return {
      tone: 'wait',
      heading: `Not enough data yet: ${moreVisitors(wait)}`,
      body: (
        <>
          <p>
            Each side needs at least {ENOUGH.sessions} visitors and {ENOUGH.conversions} conversions before a
            difference means much. Still to come: {needs.join(', ')}. So far, {soFar(lift)}: a lift of{' '}
            {points(lift.absoluteLift)}, still mostly chance.
          </p>
          {wait > shortest && (
            <p>
              At today's rates it would take {moreVisitors(wait)} in all before {waitedFor(lift)} could be
              told apart from no lift. Looking every day in the meantime is fine.
            </p>
          )}
        </>
      ),
    };
  }
  if (wait === 0)
    return {
      tone: 'wait',
      heading: `No difference of ${pointsApart(MINIMUM_LIFT)} or more`,
      body: (
        <p>
          {soFar(lift)}: a lift of {points(lift.absoluteLift)}. With this many visitors a difference of{' '}
          {pointsApart(MINIMUM_LIFT)} either way would have shown by now, so any difference is smaller. Keep
          it running to tell a smaller one, or stop if that is too small to matter.
        </p>
      ),
    };
  return {
    tone: 'wait',
    heading: `Keep it running: ${moreVisitors(wait)}`,
    body: (
      <p>
        No clear winner yet: {soFar(lift)}, a lift of {points(lift.absoluteLift)}, and the always-valid
        interval still includes zero. At today's rates it would take {moreVisitors(wait)}, on both sides
        together, before {waitedFor(lift)} could be told apart from no lift. Looking every day in the meantime
        is fine.
      </p>
    ),
  };
}

/**
 * The one verdict of the lift: what is missing, or the decision of the always-valid interval in plain
 * words, or how long to wait; every figure in it from the same answer, so that its parts agree.
 */
export function verdictOf(lift: AudienceLift, audienceHref: string): Verdict {
  const absent = missing(lift, audienceHref);
  if (absent) return absent;
  const sequence = lift.confidenceSequence as NonNullable<AudienceLift['confidenceSequence']>;
  if (lift.decision !== 'keep_running') return decided(lift, sequence);
  return running(lift, lift.sessionsToDecision ?? 0);
}

/** The verdict, said first. */
export function LiftVerdict({ verdict: { tone, heading, body } }: { verdict: Verdict }) {
  return (
    <section class={`decision ${tone}`} aria-labelledby="decision-heading">
      <h2 id="decision-heading">{heading}</h2>
      {body}
    </section>
  );
}
