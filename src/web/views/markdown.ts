// Markdown from a repository (READMEs, .md files) as safe HTML: headings one level down (under
// the page's h1), raw HTML in the source is shown as text, links and images keep only http(s), mailto, anchors and relative URLs, and a relative
// URL points into the repository (links to the blob or tree view, images to the raw view).
import { Marked, type Tokens } from 'marked';
import { escapeHtml, raw, type Html } from '../html.js';

export interface RepoLinks {
  /** The document's directory in the repository ('' for the root). */
  dir: string;
  /** URLs of a repository path's views (path without a leading slash). */
  blob(path: string): string;
  tree(path: string): string;
  raw(path: string): string;
}

/**
 * A URL the browser may follow, or null. Tabs and newlines anywhere and control characters at the
 * ends are dropped first, as the browser's URL parser drops them, so `java\nscript:` cannot slip
 * through as a relative URL. A relative URL is rebuilt from its path, so nothing else survives.
 */
export function safeUrl(href: string, kind: 'link' | 'image', links: RepoLinks): string | null {
  const clean = href.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  if (clean === '') return null;
  if (clean.startsWith('#')) return kind === 'link' ? clean : null;
  if (/^https?:\/\//i.test(clean) || clean.startsWith('//')) return clean;
  if (/^mailto:/i.test(clean)) return kind === 'link' ? clean : null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(clean)) return null;
  // Relative to the document (or, with a leading slash, to the repository root).
  let u: URL;
  try {
    u = new URL(clean, `http://repo/${links.dir ? `${links.dir}/` : ''}`);
  } catch {
    return null;
  }
  let path: string;
  try {
    path = decodeURIComponent(u.pathname).replace(/^\/+/, '');
  } catch {
    return null;
  }
  if (kind === 'image') return path ? links.raw(path) : null;
  const target = path === '' || path.endsWith('/') ? links.tree(path.replace(/\/+$/, '')) : links.blob(path);
  return target + u.hash;
}

const attr = (name: string, v: string | null | undefined): string => (v ? ` ${name}="${escapeHtml(v)}"` : '');

export function renderMarkdown(source: string, links: RepoLinks): Html {
  const md = new Marked({ gfm: true, async: false });
  md.use({
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag) {
        const text = escapeHtml(token.text);
        return 'block' in token && token.block ? `<p>${text}</p>\n` : text;
      },
      // One level down: the page's own title is its h1.
      heading(this: any, token: Tokens.Heading) {
        const level = Math.min(token.depth + 1, 6);
        return `<h${level}>${this.parser.parseInline(token.tokens)}</h${level}>\n`;
      },
      link(this: any, token: Tokens.Link) {
        const inner: string = this.parser.parseInline(token.tokens);
        const href = safeUrl(token.href, 'link', links);
        if (!href) return inner;
        const external = /^(https?:)?\/\//i.test(href);
        return `<a href="${escapeHtml(href)}"${attr('title', token.title)}${external ? ' rel="nofollow noopener noreferrer"' : ''}>${inner}</a>`;
      },
      image(token: Tokens.Image) {
        const src = safeUrl(token.href, 'image', links);
        if (!src) return escapeHtml(token.text);
        return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}"${attr('title', token.title)} loading="lazy" referrerpolicy="no-referrer">`;
      },
    },
  });
  return raw(`<div class="markdown">${md.parse(source) as string}</div>`);
}
