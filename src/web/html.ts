// HTML built from template literals: every interpolated value is escaped unless it is already Html.
// Pure (no Node APIs), so the server's pages and the browser's live updates share the same views.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);

/** Text the caller vouches for (markup built here, or sanitized elsewhere). */
export const raw = (text: string): Html => new Html(text);

function render(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A path segment by segment, each encoded (project paths and refs keep their slashes). */
export const encodePath = (p: string): string => p.split('/').map(encodeURIComponent).join('/');
