// HTML built by a tagged template that escapes by default: `html\`<td>${name}</td>\`` escapes every
// interpolated string and number, so a name from the warehouse (a symbol, a venue, a run's command)
// can never open a tag or close an attribute. Markup passes through only as an `Html` value, made
// by `html` itself or by `raw()` for text that is already safe where it goes (an SVG from the
// renderer, a script, a style sheet).

/** Markup, safe to place in a page as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** A value a template may take: text (escaped), markup (as it is), or a list of them (joined). */
export type HtmlValue = string | number | Html | null | undefined | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text with the five characters that mean something in HTML text or a quoted attribute escaped. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (value === null || value === undefined) return '';
  return escapeHtml(String(value));
}

/** The template: its literal parts as written, every interpolation escaped unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] as string);
  });
  return new Html(out);
}

/** Text already safe where it goes, passed through unescaped: say why at each use. */
export function raw(text: string): Html {
  return new Html(text);
}

/** Markup joined by a separator (written as markup). */
export function joinHtml(parts: readonly Html[], separator: string): Html {
  return new Html(parts.map((p) => p.text).join(separator));
}
