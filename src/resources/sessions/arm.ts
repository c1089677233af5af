/** Which page a session was served: the published version, or the baseline of a holdout. */
export type Arm = 'personalized' | 'baseline';
