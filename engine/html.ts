// Server-rendered HTML: a tagged template that escapes every interpolated value unless it is already
// markup made by this same template (or `raw`), so nothing a user typed reaches a page unescaped.
// Own code rather than a template engine: twenty lines give escape-by-default and nesting, which is all the
// pages need, and keep every page a typed function (docs/decisions/portal-layout.md); the portal and the hosting pages share it.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Markup that is already safe: made by `html` or wrapped by `raw` on purpose. */
export class Safe {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: unknown): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Safe) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Safe {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Safe(out);
}

/** Trusted markup only (never user input). */
export const raw = (markup: string) => new Safe(markup);
