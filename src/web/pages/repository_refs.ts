// What the repository pages share: a ref and a path out of a URL whose ref may hold slashes
// (`tree/feature/x/src` is branch `feature/x`, path `src` when that branch exists), the ref
// switcher, breadcrumbs, and the links of the repository's views.
import type { ApiClient } from '../api.js';
import { encodePath, html, type Html } from '../html.js';
import { PageNotFound, type ProjectPage, type ProjectPageContext, SENT } from '../page.js';
import type { RepoLinks } from '../views/markdown.js';

export interface Refs {
  branches: string[];
  tags: string[];
}

/** Every name of a paged list endpoint (up to 1,000 refs, which is past what a page can offer). */
async function allNames(api: ApiClient, path: string): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; page <= 10; page++) {
    const a = await api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
    if (a.status !== 200) throw new PageNotFound();
    names.push(...a.body.map((x: any) => x.name));
    if (!a.headers['x-next-page']) break;
  }
  return names;
}

export async function refsOf(ctx: ProjectPageContext): Promise<Refs> {
  const id = ctx.project.id;
  const [branches, tags] = await Promise.all([allNames(ctx.api, `/projects/${id}/repository/branches`), allNames(ctx.api, `/projects/${id}/repository/tags?order_by=name&sort=asc`)]);
  return { branches, tags };
}

/**
 * `ref/path` split as the reference does: a commit id, else the longest branch or tag name that is
 * the whole text or followed by `/`; when none is, the first segment is the ref.
 */
export function splitRef(text: string, refs: Refs): { ref: string; path: string } {
  const clean = text.replace(/^\/+|\/+$/g, '');
  const sha = /^[0-9a-f]{40}(?=\/|$)/i.exec(clean);
  if (sha) return { ref: sha[0], path: clean.slice(41) };
  let best = '';
  for (const name of [...refs.branches, ...refs.tags]) {
    if (name.length > best.length && (clean === name || clean.startsWith(`${name}/`))) best = name;
  }
  const ref = best || clean.split('/')[0];
  return { ref, path: clean.slice(ref.length + 1) };
}

export const projectBase = (project: any): string => `/${encodePath(project.path_with_namespace)}`;

/** The URL of a view of `ref` at `path`: tree, blob, raw or commits. */
export function viewUrl(project: any, view: 'tree' | 'blob' | 'blame' | 'raw' | 'commits', ref: string, path = ''): string {
  return `${projectBase(project)}/-/${view}/${encodePath(ref)}${path ? `/${encodePath(path)}` : ''}`;
}

/** Relative links of a Markdown document at `dir` on `ref`. */
export function repoLinks(project: any, ref: string, dir: string): RepoLinks {
  return {
    dir,
    blob: (p) => viewUrl(project, 'blob', ref, p),
    tree: (p) => viewUrl(project, 'tree', ref, p),
    raw: (p) => viewUrl(project, 'raw', ref, p),
  };
}

/** The repository API path of a file (`…/repository/files/a%2Fb.txt`). */
export const fileApi = (project: any, path: string): string => `/projects/${project.id}/repository/files/${encodeURIComponent(path)}`;

export function breadcrumbs(project: any, ref: string, path: string): Html {
  const parts = path ? path.split('/') : [];
  return html`<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>
  <li><a href="${viewUrl(project, 'tree', ref)}">${project.path}</a></li>
  ${parts.map((name, i) => {
    const last = i === parts.length - 1;
    return html`<li>${last ? html`<span aria-current="page">${name}</span>` : html`<a href="${viewUrl(project, 'tree', ref, parts.slice(0, i + 1).join('/'))}">${name}</a>`}</li>`;
  })}
</ol></nav>`;
}

/** A form that switches to another branch or tag on the same view (works without script). */
export function refSwitcher(project: any, refs: Refs, current: string, view: 'tree' | 'blob' | 'blame' | 'commits', path: string): Html {
  const known = refs.branches.includes(current) || refs.tags.includes(current);
  return html`<form method="get" action="${projectBase(project)}/-/refs/switch" class="ref-switcher">
  <input type="hidden" name="destination" value="${view}">
  <input type="hidden" name="path" value="${path}">
  <label><span>Branch or tag</span>
  <select name="ref">
    ${known ? '' : html`<option value="${current}" selected>${current}</option>`}
    <optgroup label="Branches">${refs.branches.map((b) => html`<option value="${b}"${b === current ? html` selected` : ''}>${b}</option>`)}</optgroup>
    ${refs.tags.length ? html`<optgroup label="Tags">${refs.tags.map((t) => html`<option value="${t}"${t === current ? html` selected` : ''}>${t}</option>`)}</optgroup>` : ''}
  </select></label>
  <button type="submit">Switch</button>
</form>`;
}

export const refSwitchPages: ProjectPage[] = [
  {
    path: 'refs/switch',
    async handler(ctx) {
      const dest = ctx.query.get('destination');
      const ref = ctx.query.get('ref');
      if (!ref || (dest !== 'tree' && dest !== 'blob' && dest !== 'blame' && dest !== 'commits')) throw new PageNotFound();
      ctx.reply.redirect(viewUrl(ctx.project, dest, ref, ctx.query.get('path') ?? ''), 302);
      return SENT;
    },
  },
];
