import { type Static, Type } from 'typebox';
import { Count, IdParams, Instant, Nullable } from '../../http/schemas.ts';
import { DEFAULT_MINIMUM_LIFT, DEFAULT_SEQUENTIAL_TUNING } from './sequential.ts';

export const SessionId = Type.String({
  pattern: '^[A-Za-z0-9-]{8,64}$',
  description:
    "A session id such as 5d1c7a2e-9b1f-4c3e: 8 to 64 letters, digits or '-'. The visitor's session id",
  examples: ['5d1c7a2e-9b1f-4c3e'],
});

const At = Type.Integer({
  minimum: 0,
  description: 'When it happened, epoch milliseconds (as the browser saw it)',
});

export const SessionEvent = Type.Union(
  [
    Type.Object({ type: Type.Literal('session_start'), at: At }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('interaction'), at: At }, { additionalProperties: false }),
    Type.Object(
      { type: Type.Literal('scroll'), at: At, depth: Type.Integer({ minimum: 0, maximum: 100 }) },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('cta_click'), at: At, actionId: Type.String({ minLength: 1, maxLength: 64 }) },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('time'), at: At, ms: Type.Integer({ minimum: 0, maximum: 3_600_000 }) },
      { additionalProperties: false },
    ),
  ],
  { title: 'SessionEvent' },
);
export type SessionEvent = Static<typeof SessionEvent>;

export const EventBatch = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 2048, description: "The page's signed token" }),
    sessionId: SessionId,
    events: Type.Array(SessionEvent, { minItems: 1, maxItems: 50 }),
  },
  {
    title: 'SessionEventBatch',
    examples: [
      {
        token: 'eyJ0IjoidGVuYW50XzAxamRxMXZ6In0.q8Xh2v5p0dTzR3mL9sKcWbYfJ4nAeGu7',
        sessionId: '3f6c1a2e-8b4d-4e7a-9c1f-5d2b7e9a0c44',
        events: [
          { type: 'session_start', at: 1774526400000 },
          { type: 'scroll', at: 1774526404500, depth: 60 },
          { type: 'cta_click', at: 1774526409000, actionId: 'book-demo' },
          { type: 'time', at: 1774526430000, ms: 30000 },
        ],
      },
    ],
    additionalProperties: false,
  },
);
export type EventBatch = Static<typeof EventBatch>;

export const EventsAccepted = Type.Object({ accepted: Type.Integer() }, { title: 'SessionEventsAccepted' });

export const AnalyticsQuery = Type.Object({
  startDate: Type.Optional(Instant('RFC 3339 date-time or "+ms"; default 30 days before endDate')),
  endDate: Type.Optional(Instant('RFC 3339 date-time or "+ms"; default now; exclusive')),
});

export const LiftQuery = Type.Object({
  ...AnalyticsQuery.properties,
  sequentialTuning: Type.Optional(
    Type.Integer({
      minimum: 100,
      maximum: 10_000_000,
      default: DEFAULT_SEQUENTIAL_TUNING,
      description:
        'Sessions (both arms) at which a decision is expected: the confidence sequence is tightest there. Integer 100 to 10,000,000; default 5,000',
    }),
  ),
  minimumLift: Type.Optional(
    Type.Number({
      minimum: 0.001,
      maximum: 1,
      default: DEFAULT_MINIMUM_LIFT,
      description:
        'The smallest absolute lift worth waiting for, a fraction 0.001-1 (0.02 is 2 percentage points): sessionsToDecision waits for it while the observed lift is smaller. Default 0.02',
    }),
  ),
});

export const AudienceAnalyticsItem = Type.Object(
  {
    audienceId: Type.String(),
    totalSessions: Type.Number(),
    avgInteractionsPerSession: Type.Number(),
    avgScrollDepthPercentage: Type.Number({ description: '0-100' }),
    avgTimeSpentSeconds: Type.Number(),
    bounceRate: Type.Number({ description: 'Fraction 0-1 of bounce-eligible sessions that bounced' }),
    conversionRate: Type.Number({
      description: 'Fraction 0-1 of sessions with a CTA click or a form submission',
    }),
    formSubmitRate: Type.Number({ description: 'Fraction 0-1 of sessions with a form submission' }),
    bounceCount: Type.Number(),
    bounceEligibleSessions: Type.Number(),
    conversionCount: Type.Number(),
    ctaSessions: Type.Number(),
    formSubmitCount: Type.Number({ description: 'Sessions with a form submission' }),
  },
  { title: 'AudienceAnalyticsItem' },
);
export type AudienceAnalyticsItem = Static<typeof AudienceAnalyticsItem>;

export const AudienceAnalytics = Type.Object(
  { items: Type.Array(AudienceAnalyticsItem) },
  { title: 'AudienceAnalytics' },
);
export const AnalyticsParams = IdParams('page_id');

const ArmCounts = Type.Object({
  sessions: Count,
  conversions: Count,
});

const ArmResult = Type.Object({
  ...ArmCounts.properties,
  conversionRate: Nullable(
    Type.Number({ description: 'conversions ÷ sessions, a fraction 0-1; null without sessions' }),
  ),
});

const Fraction = (description: string) => Nullable(Type.Number({ description }));

/** A difference of two rates, which lies in [−1, 1]. */
const Difference = (description: string) => Type.Number({ minimum: -1, maximum: 1, description });

const AlwaysValidInterval = Type.Object(
  {
    lower: Difference('Lower bound, -1 to 1'),
    upper: Difference('Upper bound, -1 to 1'),
  },
  { title: 'AlwaysValidInterval' },
);

export const AudienceLift = Type.Object(
  {
    audienceId: Type.String(),
    holdoutPercent: Type.Integer({ description: "The audience's holdout now, 0-50" }),
    personalized: ArmResult,
    baseline: ArmResult,
    absoluteLift: Fraction(
      "The personalized arm's conversion rate minus the baseline's; null when either arm has no session",
    ),
    relativeLift: Fraction(
      'absoluteLift ÷ the baseline rate (0.25 is 25 % better); null when either arm has no session or the baseline converted none',
    ),
    confidenceInterval: Type.Object(
      {
        lower: Fraction(
          'Lower bound of the 95 % interval of absoluteLift, -1 to 1; null when either arm has no session',
        ),
        upper: Fraction('Upper bound, -1 to 1; null when either arm has no session'),
      },
      {
        description:
          "Newcombe's hybrid score interval (95 %) for the difference of the two rates, within [-1, 1]",
      },
    ),
    confidenceSequence: Nullable(AlwaysValidInterval, {
      description:
        'The always-valid 95 % interval of absoluteLift, within [-1, 1]: the normal-mixture confidence sequence (Howard, Ramdas, McAuliffe and Sekhon, 2021) of the difference of the two rates. Unlike confidenceInterval, it stays 95 % valid however often it is read, so it may be checked every day. Null (not an object of nulls) while either arm has no session or neither arm varies (v = 0: no conversion at all, or nothing but conversions)',
    }),
    decision: Type.Union(
      [Type.Literal('personalized_wins'), Type.Literal('baseline_wins'), Type.Literal('keep_running')],
      {
        description:
          'What the confidence sequence lets one act on: personalized_wins when its lower bound is above 0, baseline_wins when its upper bound is below 0, otherwise (or while it is null) keep_running',
      },
    ),
    sessionsToDecision: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'While keep_running and confidenceSequence is not null: about how many more sessions (both arms together, in the current split) before the sequence would exclude 0 if the rates stay as observed, for a lift of the observed size or, while that is under minimumLift, of minimumLift; never less than what enoughData still needs, the sum over both arms of max(0, 100 − sessions, 10 − conversions). 0 only once enoughData is true: a lift of minimumLift would already show, so the true lift is likely smaller. Null once decided, and while confidenceSequence is null',
      }),
    ),
    chanceToBeatBaseline: Fraction(
      'The probability, 0-1, that the personalized rate is above the baseline rate (Bayesian, uniform Beta(1, 1) priors); null when either arm has no session',
    ),
    srm: Type.Object(
      {
        pValue: Fraction(
          'Chi-square test of the observed split of sessions against holdoutPercent; null without sessions or holdout',
        ),
        mismatch: Type.Boolean({
          description: 'pValue < 0.001: the split is not what the holdout asks for, so distrust the result',
        }),
      },
      { description: 'The sample-ratio-mismatch check' },
    ),
    enoughData: Type.Boolean({
      description: 'False while either arm has fewer than 100 sessions or 10 conversions',
    }),
    daily: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'A UTC day of the period, YYYY-MM-DD' }),
        personalized: ArmCounts,
        baseline: ArmCounts,
        confidenceSequence: Nullable(AlwaysValidInterval, {
          description:
            "The always-valid 95 % interval of the lift over the period's sessions up to the end of this day, with the request's sequentialTuning: read day after day, it narrows. Null while an arm has no session yet or neither arm varies",
        }),
      }),
      { description: 'Every UTC day the period touches, oldest first, days without sessions included' },
    ),
  },
  { title: 'AudienceLift' },
);
export type AudienceLift = Static<typeof AudienceLift>;

export const LiftParams = IdParams('page_id', 'audience_id');
