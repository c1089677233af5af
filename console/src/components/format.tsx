/** The API's timestamps are "+" and Unix epoch milliseconds (docs/api.md). */
export function dateOf(timestamp: string): Date {
  return new Date(Number(timestamp.slice(1)));
}

/** A timestamp in the reader's locale, machine-readable too; a dash when unset. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const date = dateOf(at);
  return (
    <time dateTime={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** A resource's state as a word with its colour (styles.css `.badge.<state>`). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{status}</span>;
}
