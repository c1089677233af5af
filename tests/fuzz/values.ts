import fc from 'fast-check';

/**
 * What the generators produce: JSON values, plus a few markers for what JSON.stringify cannot say
 * or what is only known when the request is sent. Markers keep a failing request short to print.
 */

/** Whose data a known value belongs to: the tenant making the request, or the other one. */
export type Owner = 'caller' | 'other';

/** `count` copies of `unit`, built only when the request is sent. */
export class Huge {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}

  text(): string {
    return this.unit.repeat(this.count);
  }

  [fc.toStringMethod](): string {
    return `Huge(${JSON.stringify(this.unit)} x ${this.count})`;
  }
}

/** `depth` arrays or objects nested in one another, written straight as JSON text. */
export class Deep {
  constructor(
    readonly kind: 'array' | 'object',
    readonly depth: number,
  ) {}

  json(): string {
    return this.kind === 'array'
      ? `${'['.repeat(this.depth)}${']'.repeat(this.depth)}`
      : `${'{"a":'.repeat(this.depth)}{}${'}'.repeat(this.depth)}`;
  }

  [fc.toStringMethod](): string {
    return `Deep(${this.kind} x ${this.depth})`;
  }
}

/** A number sent as exactly this JSON text: `1e309` parses to Infinity, `-0` and `1.0` are numbers too. */
export class NumberText {
  constructor(readonly text: string) {}

  [fc.toStringMethod](): string {
    return `NumberText(${this.text})`;
  }
}

/**
 * A value the run knows only once it is under way: entry `index` (modulo its size) of the pool
 * `pool` of the owner's tenant (real ids, tokens, cursors), picked when the request is sent. For a
 * path parameter, `together` names the request's parameters that must come from one context.
 */
export class Known {
  constructor(
    readonly pool: string,
    readonly owner: Owner,
    readonly index: number,
    readonly together: readonly string[] = [],
  ) {}

  [fc.toStringMethod](): string {
    return `Known(${this.pool}, ${this.owner}, #${this.index})`;
  }
}

/** Text for a URL that is already percent-encoded, sent as is (`%00`, `%ff`, `..`). */
export class Escaped {
  constructor(readonly text: string) {}

  [fc.toStringMethod](): string {
    return `Escaped(${this.text})`;
  }
}

export type FuzzValue =
  | null
  | boolean
  | number
  | string
  | Huge
  | Deep
  | NumberText
  | Known
  | Escaped
  | FuzzValue[]
  | { [key: string]: FuzzValue };

/** Turns a Known into the string it stands for at this moment of the run. */
export type Resolve = (known: Known) => string;

/**
 * The JSON text of `value`. Keys are written as they are, `__proto__` and `constructor` included:
 * objects are built with Object.fromEntries, so such keys are their own properties.
 */
export function jsonText(value: FuzzValue, resolve: Resolve): string {
  if (value instanceof Huge) return JSON.stringify(value.text());
  if (value instanceof Deep) return value.json();
  if (value instanceof NumberText) return value.text;
  if (value instanceof Known) return JSON.stringify(resolve(value));
  if (value instanceof Escaped) return JSON.stringify(value.text);
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item, resolve)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(
      ([key, item]) => `${JSON.stringify(key)}:${jsonText(item, resolve)}`,
    );
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `value` as the text of a path segment or query value, before percent-encoding. */
export function plainText(value: FuzzValue, resolve: Resolve): string {
  if (typeof value === 'string') return value;
  if (value instanceof Huge) return value.text();
  if (value instanceof Known) return resolve(value);
  if (value instanceof NumberText || value instanceof Escaped) return value.text;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : jsonText(value, resolve);
}

function escapeBytes(bytes: number[]): string {
  return bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** `value` as it goes into a URL: percent-encoded, unless it is already. */
export function urlText(value: FuzzValue, resolve: Resolve): string {
  return value instanceof Escaped ? value.text : percentEncode(plainText(value, resolve));
}

/**
 * Percent-encodes `text` as UTF-8, and a lone surrogate as the three bytes it would take (which no
 * valid UTF-8 contains), since encodeURIComponent refuses one.
 */
export function percentEncode(text: string): string {
  if (text.isWellFormed()) return encodeURIComponent(text);
  let encoded = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    encoded +=
      code >= 0xd800 && code <= 0xdfff
        ? escapeBytes([0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)])
        : encodeURIComponent(char);
  }
  return encoded;
}
