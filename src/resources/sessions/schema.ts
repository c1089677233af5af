import { type Static, Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';

export const SessionId = Type.String({
  pattern: '^[A-Za-z0-9-]{8,64}$',
  description: "The visitor's session id",
});

const At = Type.Integer({
  minimum: 0,
  description: 'When it happened, epoch milliseconds (as the browser saw it)',
});

export const SessionEvent = Type.Union([
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
]);
export type SessionEvent = Static<typeof SessionEvent>;

export const EventBatch = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 2048, description: "The page's signed token" }),
    sessionId: SessionId,
    events: Type.Array(SessionEvent, { minItems: 1, maxItems: 50 }),
  },
  { additionalProperties: false },
);
export type EventBatch = Static<typeof EventBatch>;

export const EventsAccepted = Type.Object({ accepted: Type.Integer() });

export const AnalyticsQuery = Type.Object({
  startDate: Type.Optional(
    Type.String({ description: 'RFC 3339 date-time or "+ms"; default 30 days before endDate' }),
  ),
  endDate: Type.Optional(Type.String({ description: 'RFC 3339 date-time or "+ms"; default now; exclusive' })),
});

export const AudienceAnalyticsItem = Type.Object({
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
});
export type AudienceAnalyticsItem = Static<typeof AudienceAnalyticsItem>;

export const AudienceAnalytics = Type.Object({ items: Type.Array(AudienceAnalyticsItem) });
export const AnalyticsParams = IdParams('page_id');
