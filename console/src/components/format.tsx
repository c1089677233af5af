import type { ComponentChildren } from 'preact';

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

interface WebLinkProps {
  url: string;
  class?: string;
  children: ComponentChildren;
}

/**
 * A link that opens in a new tab when `url` is an absolute http(s) URL; any other value (one stored
 * before the API checked schemes, a `javascript:` URL) is shown as text and never linked.
 */
export function WebLink({ url, class: className, children }: WebLinkProps) {
  if (!/^https?:\/\//i.test(url)) return <span>{url}</span>;
  return (
    <a class={className} href={url} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}
