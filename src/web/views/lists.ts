// Lists several pages show: projects, groups, and the pager under any list.
import { html, type Html } from '../html.js';
import type { Pager } from '../api.js';
import { avatar, when } from './common.js';

export function projectList(projects: any[], empty = 'No projects yet.'): Html {
  if (projects.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table>
  <caption class="visually-hidden">Projects</caption>
  <thead><tr><th scope="col">Project</th><th scope="col">Visibility</th><th scope="col">Last activity</th></tr></thead>
  <tbody>
  ${projects.map(
    (p) => html`<tr>
    <td>${avatar(p.avatar_url && sitePath(p.avatar_url), p.name)} <a href="${sitePath(p.web_url)}">${p.name_with_namespace}</a>${p.description ? html`<br><span class="muted">${p.description}</span>` : ''}</td>
    <td>${p.visibility ?? ''}</td>
    <td>${when(p.last_activity_at)}</td>
  </tr>`,
  )}
  </tbody>
</table>`;
}

export function groupList(groups: any[], empty = 'No groups yet.'): Html {
  if (groups.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table>
  <caption class="visually-hidden">Groups</caption>
  <thead><tr><th scope="col">Group</th><th scope="col">Visibility</th></tr></thead>
  <tbody>
  ${groups.map(
    (g) => html`<tr>
    <td>${avatar(g.avatar_url && sitePath(g.avatar_url), g.name)} <a href="${sitePath(g.web_url)}">${g.full_name}</a>${g.description ? html`<br><span class="muted">${g.description}</span>` : ''}</td>
    <td>${g.visibility ?? ''}</td>
  </tr>`,
  )}
  </tbody>
</table>`;
}

/** Previous / next links for a list page; `href(page)` builds the page's URL. */
export function pagerLinks(p: Pager, href: (page: number) => string): Html {
  if (!p.prevPage && !p.nextPage) return html``;
  return html`<nav class="pager" aria-label="Pages">
  ${p.prevPage ? html`<a href="${href(p.prevPage)}" rel="prev">Previous</a>` : ''}
  <span>Page ${p.page}${p.totalPages ? html` of ${p.totalPages}` : ''}</span>
  ${p.nextPage ? html`<a href="${href(p.nextPage)}" rel="next">Next</a>` : ''}
</nav>`;
}

/** A path (and query) of this site for an API `web_url`, so links work whatever host the page was reached at. */
export const sitePath = (webUrl: string): string => {
  const u = new URL(webUrl);
  return u.pathname + u.search;
};

/** The `page` query parameter of a list page (1 when absent or not a number). */
export const pageNumber = (q: URLSearchParams): number => Math.max(1, Number.parseInt(q.get('page') ?? '1', 10) || 1);
