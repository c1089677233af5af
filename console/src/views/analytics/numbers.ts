/** Figures as the analytics views show them, in the reader's locale. */

export function count(value: number): string {
  return value.toLocaleString();
}

/** A count with its noun: "1 session", "1,200 sessions". */
export function counted(value: number, noun: string): string {
  return `${count(value)} ${noun}${value === 1 ? '' : 's'}`;
}

/** A fraction 0–1 as a percentage: 0.256 → "25.6%"; a dash when it cannot be computed. */
export function percent(value: number | null): string {
  if (value === null) return '—';
  return value.toLocaleString(undefined, { style: 'percent', maximumFractionDigits: 1 });
}

/** A change as a signed percentage: 0.66 → "+66%". */
export function change(value: number | null): string {
  if (value === null) return '—';
  return value.toLocaleString(undefined, {
    style: 'percent',
    maximumFractionDigits: 1,
    signDisplay: 'exceptZero',
  });
}

/** A probability, never rounded to a certainty it is not: 0.9995 → "> 99.9%". */
export function chance(value: number | null): string {
  if (value === null) return '—';
  if (value > 0.999) return `> ${percent(0.999)}`;
  if (value < 0.001) return `< ${percent(0.001)}`;
  return percent(value);
}

/**
 * A difference of two rates in percentage points: 0.041 → "+4.1 pts" (or "+4.1" without the unit),
 * the unit kept on the figure's line by a no-break space.
 */
export function points(value: number | null, unit = true): string {
  if (value === null) return '—';
  const formatted = (value * 100).toLocaleString(undefined, {
    maximumFractionDigits: 1,
    signDisplay: 'exceptZero',
  });
  return unit ? `${formatted}\u00a0pts` : formatted;
}

/** An interval of lifts in percentage points: "-1.2 to +3.4 pts". */
export function pointsRange({ lower, upper }: { lower: number; upper: number }): string {
  return `${points(lower, false)} to ${points(upper)}`;
}

/** A size of difference in percentage points, without a sign: 0.02 → "2 pts". */
export function pointsApart(value: number): string {
  return `${(Math.abs(value) * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })}\u00a0pts`;
}

export function seconds(value: number): string {
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 0 })} s`;
}

export function decimal(value: number): string {
  return value.toLocaleString(undefined, { maximumFractionDigits: 1 });
}
