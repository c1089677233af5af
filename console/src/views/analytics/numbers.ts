/** Figures as the analytics views show them, in the reader's locale. */

export function count(value: number): string {
  return value.toLocaleString();
}

/** A fraction 0–1 as a percentage: 0.256 → "25.6 %"; a dash when it cannot be computed. */
export function percent(value: number | null, digits = 1): string {
  if (value === null) return '—';
  return value.toLocaleString(undefined, { style: 'percent', maximumFractionDigits: digits });
}

/** A difference of two rates in percentage points: 0.041 → "+4.1 pts". */
export function points(value: number | null): string {
  if (value === null) return '—';
  const formatted = (value * 100).toLocaleString(undefined, {
    maximumFractionDigits: 1,
    signDisplay: 'exceptZero',
  });
  return `${formatted} pts`;
}

export function seconds(value: number): string {
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 0 })} s`;
}

export function decimal(value: number): string {
  return value.toLocaleString(undefined, { maximumFractionDigits: 1 });
}
