/**
 * Which page a visitor was served: the published version, or the baseline (version 0) of a holdout.
 * A session is counted in its arm, and a lead says which arm its visitor saw.
 */
export const ARMS = ['personalized', 'baseline'] as const;
export type Arm = (typeof ARMS)[number];
