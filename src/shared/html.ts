/**
 * HTML built from templates that escape every interpolated value, so that no field of a page can
 * become markup by mistake: a value is text unless it is an `Html` fragment made here.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Markup that is already safe to insert: built by `html`, or trusted on purpose with `raw`. */
export class Html {
  constructor(readonly text: string) {}
}

export type Part = Html | string | number | null | undefined | false | readonly Part[];

/** Escapes text for both element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] as string);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** A template whose interpolations are escaped (arrays are joined, null/undefined/false are dropped). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] as string;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1];
  });
  return new Html(text);
}

/** Markup inserted as is: only for the service's own constants and the tenant's own scripts. */
export function raw(text: string): Html {
  return new Html(text);
}
