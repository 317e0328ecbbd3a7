// Users in the admin area: the list (search, state tabs), a new user, one user's details and the
// actions on them (block, unblock, deactivate, activate, administrator or not, delete), each a call
// to the admin users API.
import { html, type Html } from '../html.js';
import { pagerOf } from '../api.js';
import { PageNotFound, type PageContext, type SitePage } from '../page.js';
import { when } from '../views/common.js';
import { pagerLinks, projectList, sitePath } from '../views/lists.js';
import { adminNav, mustGet, requireAdmin } from './admin.js';

/** The list's tabs: the API filter each one applies. */
const TABS: { key: string; label: string; filter: string }[] = [
  { key: 'all', label: 'Active', filter: 'active=true' },
  { key: 'admins', label: 'Admins', filter: 'admins=true' },
  { key: 'blocked', label: 'Blocked', filter: 'blocked=true' },
  { key: 'external', label: 'External', filter: 'external=true' },
  { key: 'everyone', label: 'All', filter: '' },
];

const adminUserPath = (username: string) => `/admin/users/${encodeURIComponent(username)}`;

function stateBadges(u: any): Html {
  return html`${u.is_admin ? html` <span class="badge">Admin</span>` : ''}${u.state !== 'active' ? html` <span class="badge badge-warn">${u.state}</span>` : ''}${u.external ? html` <span class="badge">External</span>` : ''}`;
}

async function userByUsername(ctx: PageContext, username: string): Promise<any> {
  const found = (await mustGet(ctx, `/users?username=${encodeURIComponent(username)}`)).body as any[];
  if (found.length !== 1) throw new PageNotFound();
  return (await mustGet(ctx, `/users/${found[0].id}`)).body;
}

export const adminUserPages: SitePage[] = [
  {
    path: '/admin/users',
    async handler(ctx) {
      requireAdmin(ctx);
      const tab = TABS.find((t) => t.key === ctx.query.get('filter')) ?? TABS[0];
      const search = ctx.query.get('search') ?? '';
      const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
      const q = new URLSearchParams(tab.filter);
      if (search) q.set('search', search);
      q.set('per_page', '20');
      q.set('page', String(page));
      q.set('order_by', 'name');
      q.set('sort', 'asc');
      const a = await mustGet(ctx, `/users?${q}`);
      const users = a.body as any[];
      const href = (over: Record<string, string>) => {
        const p = new URLSearchParams({ ...(tab.key !== 'all' ? { filter: tab.key } : {}), ...(search ? { search } : {}), ...over });
        const s = p.toString();
        return `/admin/users${s ? `?${s}` : ''}`;
      };
      return {
        title: 'Users · Admin area',
        aside: adminNav('users'),
        body: html`<div class="toolbar"><h1>Users</h1><a class="button primary" href="/admin/users/new">New user</a></div>
<nav class="tabs" aria-label="User states"><ul>${TABS.map(
          (t) => html`<li><a href="/admin/users${t.key === 'all' ? '' : `?filter=${t.key}`}"${t === tab ? html` aria-current="page"` : ''}>${t.label}</a></li>`,
        )}</ul></nav>
<form method="get" action="/admin/users" class="toolbar" role="search">
  ${tab.key !== 'all' ? html`<input type="hidden" name="filter" value="${tab.key}">` : ''}
  <label><span class="visually-hidden">Search by name, email or username</span><input type="search" name="search" value="${search}" placeholder="Search by name, email or username"></label>
  <button type="submit">Search</button>
</form>
${
  users.length === 0
    ? html`<p class="muted">No users found.</p>`
    : html`<table>
  <caption class="visually-hidden">Users</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Created</th><th scope="col">Last activity</th></tr></thead>
  <tbody>
  ${users.map(
    (u) => html`<tr>
    <td><a href="${adminUserPath(u.username)}">${u.name}</a>${stateBadges(u)}<br><span class="muted">@${u.username}</span></td>
    <td>${u.email ?? ''}</td>
    <td>${when(u.created_at)}</td>
    <td>${u.last_activity_on ?? html`<span class="muted">Never</span>`}</td>
  </tr>`,
  )}
  </tbody>
</table>`
}
${pagerLinks(pagerOf(a), (n) => href({ page: String(n) }))}`,
      };
    },
  },
  {
    path: '/admin/users/new',
    async handler(ctx) {
      requireAdmin(ctx);
      return {
        title: 'New user · Admin area',
        aside: adminNav('users'),
        body: html`<p class="breadcrumbs"><a href="/admin/users">Users</a></p>
<h1>New user</h1>
<form class="stack" data-api="/users" data-method="POST" data-then="redirect:/admin/users?filter=everyone">
  <fieldset><legend>Account</legend>
    <label><span>Name</span><input type="text" name="name" required autocomplete="off"></label>
    <label><span>Username</span><input type="text" name="username" required autocomplete="off"></label>
    <label><span>Email</span><input type="email" name="email" required autocomplete="off"></label>
    <label><span>Password</span><input type="password" name="password" required autocomplete="new-password" minlength="8"></label>
    <label class="check"><input type="checkbox" name="skip_confirmation" checked> Skip email confirmation</label>
  </fieldset>
  <fieldset><legend>Access</legend>
    <label><span>Projects limit</span><input type="number" name="projects_limit" data-type="number" min="0" step="1"></label>
    <label class="check"><input type="checkbox" name="can_create_group" checked> Can create top-level groups</label>
    <label class="check"><input type="checkbox" name="admin"> Administrator</label>
    <label class="check"><input type="checkbox" name="external"> External</label>
  </fieldset>
  <button type="submit" class="primary">Create user</button>
</form>`,
      };
    },
  },
  {
    path: '/admin/users/:username',
    async handler(ctx) {
      requireAdmin(ctx);
      const u = await userByUsername(ctx, ctx.params.username);
      const projects = await ctx.api.get(`/users/${u.id}/projects?per_page=20&order_by=last_activity_at`);
      const act = (label: string, path: string, extra: Html | string = '') =>
        html`<button type="button" data-api="/users/${u.id}${path}" data-method="POST" ${extra}>${label}</button>`;
      const self = u.id === ctx.viewer!.id;
      return {
        title: `${u.name} · Users · Admin area`,
        aside: adminNav('users'),
        body: html`<p class="breadcrumbs"><a href="/admin/users">Users</a></p>
<div class="toolbar"><h1>${u.name}</h1>${stateBadges(u)}</div>
<p class="muted">@${u.username} &middot; <a href="${sitePath(u.web_url)}">Profile page</a></p>
<section class="panel" aria-labelledby="account-title">
  <h2 id="account-title">Account</h2>
  <dl class="facts">
    <dt>Email</dt><dd>${u.email}</dd>
    <dt>ID</dt><dd>${u.id}</dd>
    <dt>State</dt><dd>${u.state}</dd>
    <dt>Administrator</dt><dd>${u.is_admin ? 'Yes' : 'No'}</dd>
    <dt>External</dt><dd>${u.external ? 'Yes' : 'No'}</dd>
    <dt>Can create groups</dt><dd>${u.can_create_group ? 'Yes' : 'No'}</dd>
    <dt>Projects limit</dt><dd>${u.projects_limit}</dd>
    <dt>Member since</dt><dd>${when(u.created_at)}</dd>
    <dt>Last sign-in</dt><dd>${when(u.last_sign_in_at)}</dd>
    <dt>Sign-in count</dt><dd>${u.sign_in_count ?? 0}</dd>
    <dt>Last activity</dt><dd>${u.last_activity_on ?? 'Never'}</dd>
  </dl>
</section>
<section class="panel" aria-labelledby="actions-title" data-action-scope>
  <h2 id="actions-title">Actions</h2>
  ${
    self
      ? html`<p class="muted">You cannot change your own account's state here.</p>`
      : html`<div class="toolbar">
    ${u.state === 'blocked' || u.state === 'ldap_blocked' ? act('Unblock user', '/unblock') : act('Block user', '/block', html`data-confirm="Block ${u.username}? They will not be able to sign in or use the API."`)}
    ${u.state === 'deactivated' ? act('Activate user', '/activate') : u.state === 'active' ? act('Deactivate user', '/deactivate', html`data-confirm="Deactivate ${u.username}?"`) : ''}
    <button type="button" data-api="/users/${u.id}" data-method="PUT" data-body="${JSON.stringify({ admin: !u.is_admin })}">${u.is_admin ? 'Remove administrator access' : 'Make administrator'}</button>
    <button type="button" class="danger" data-api="/users/${u.id}" data-method="DELETE" data-confirm="Delete ${u.username}? Their personal projects are deleted too." data-then="redirect:/admin/users">Delete user</button>
  </div>`
  }
</section>
<h2>Projects</h2>
${projectList(projects.status === 200 ? projects.body : [], 'No personal projects.')}`,
      };
    },
  },
];
