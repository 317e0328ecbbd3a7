// The admin area's frame (who may enter, its navigation) and its overview. Every read and write
// still goes through the admin endpoints of the REST API, which refuse anyone else; the check here
// only chooses the reference's answer: the 404 page for a user, the sign-in page for a visitor.
import { html, type Html } from '../html.js';
import type { ApiAnswer } from '../api.js';
import { PageNotFound, SignInRequired, type PageContext, type SitePage } from '../page.js';
import { when } from '../views/common.js';
import { sitePath } from '../views/lists.js';

export function requireAdmin(ctx: PageContext): void {
  if (!ctx.viewer) throw new SignInRequired();
  if (!ctx.viewer.is_admin) throw new PageNotFound();
}

/** A read that must succeed: anything the API refuses is the 404 page. */
export async function mustGet(ctx: PageContext, path: string): Promise<ApiAnswer> {
  const a = await ctx.api.get(path);
  if (a.status !== 200) throw new PageNotFound();
  return a;
}

const SECTIONS = [
  { section: 'overview', label: 'Overview', href: '/admin' },
  { section: 'users', label: 'Users', href: '/admin/users' },
  { section: 'settings', label: 'Settings', href: '/admin/application_settings' },
  { section: 'hooks', label: 'System hooks', href: '/admin/hooks' },
  { section: 'runners', label: 'Runners', href: '/admin/runners' },
];

export function adminNav(current: string): Html {
  return html`<nav class="aside" aria-label="Admin area">
  <p class="aside-title"><a href="/admin">Admin area</a></p>
  <ul>${SECTIONS.map((s) => html`<li><a href="${s.href}"${s.section === current ? html` aria-current="page"` : ''}>${s.label}</a></li>`)}</ul>
</nav>`;
}

/** The `x-total` of a list (absent above the API's counting limit). */
const totalOf = (a: ApiAnswer): string => {
  const t = a.headers['x-total'];
  return t === undefined || t === '' ? 'more than 10,000' : String(t);
};

export const adminPages: SitePage[] = [
  {
    path: '/admin',
    async handler(ctx) {
      requireAdmin(ctx);
      const [users, projects, groups] = await Promise.all([
        mustGet(ctx, '/users?per_page=5&order_by=created_at&sort=desc'),
        mustGet(ctx, '/projects?per_page=5&order_by=created_at&sort=desc&statistics=false'),
        mustGet(ctx, '/groups?per_page=5&all_available=true&order_by=id&sort=desc'),
      ]);
      const card = (title: string, a: ApiAnswer, href: string | null, rows: Html[]) => html`<section class="panel stat" aria-labelledby="stat-${title}">
  <h2 id="stat-${title}">${title}</h2>
  <p class="stat-count">${href ? html`<a href="${href}">${totalOf(a)}</a>` : totalOf(a)}</p>
  <h3>Latest</h3>
  ${rows.length ? html`<ul class="plain">${rows}</ul>` : html`<p class="muted">None yet.</p>`}
</section>`;
      return {
        title: 'Admin area',
        aside: adminNav('overview'),
        body: html`<h1>Admin area</h1>
<div class="stats">
${card('Users', users, '/admin/users', (users.body as any[]).map((u) => html`<li><a href="/admin/users/${encodeURIComponent(u.username)}">${u.name}</a> <span class="muted">@${u.username} &middot; ${when(u.created_at)}</span></li>`))}
${card('Projects', projects, '/explore/projects', (projects.body as any[]).map((p) => html`<li><a href="${sitePath(p.web_url)}">${p.name_with_namespace}</a> <span class="muted">${when(p.created_at)}</span></li>`))}
${card('Groups', groups, null, (groups.body as any[]).map((g) => html`<li><a href="${sitePath(g.web_url)}">${g.full_name}</a> <span class="muted">${when(g.created_at)}</span></li>`))}
</div>`,
      };
    },
  },
];
