// Markdown of one line (a label's or milestone's description) as safe HTML: raw HTML is shown as
// text, links keep only http(s), mailto, anchors and relative URLs. The reference renders these
// fields with its single-line pipeline (no paragraph around the text).
import { Marked, type Tokens } from 'marked';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtmlText = (s: string): string => s.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);

const SAFE_HREF = /^(https?:\/\/|mailto:|#|\/(?!\/)|\.{0,2}\/|[^:]*$)/i;

const inline = new Marked({ gfm: true, async: false });
inline.use({
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtmlText(token.text);
    },
    link(this: any, token: Tokens.Link) {
      const inner: string = this.parser.parseInline(token.tokens);
      const href = token.href.replace(/[\t\n\r]/g, '').trim();
      if (!SAFE_HREF.test(href)) return inner;
      return `<a href="${escapeHtmlText(href)}" rel="nofollow noreferrer noopener" target="_blank">${inner}</a>`;
    },
    image(token: Tokens.Image) {
      return escapeHtmlText(token.text);
    },
  },
});

/** One line of markdown as HTML without a paragraph; '' for none. */
export function singleLineHtml(source: string | null): string {
  if (!source) return '';
  return (inline.parseInline(source) as string).trim();
}
