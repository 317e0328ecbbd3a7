// Group pages: the group (description, subgroups, projects, members), its settings for owners at
// `{group}/-/edit`, its members and badges (group_members.ts), and a new group. A group is reached at `/groups/{path}` (its web_url) and at
// `/{path}`; what follows `/-/` picks the page (groupRoute).
import { encodePath, html, type Html } from '../html.js';
import { PageNotFound, SignInRequired, type PageContext, type Rendered, type SitePage } from '../page.js';
import { DEVELOPER, MAINTAINER, OWNER } from '../project_nav.js';
import { avatar } from '../views/common.js';
import { projectList, sitePath } from '../views/lists.js';
import { groupAccessOf, groupBadgesPage, groupMembersPage } from './group_members.js';

const ROLE_NAMES: Record<number, string> = { 5: 'Minimal access', 10: 'Guest', 20: 'Reporter', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };

const VISIBILITIES: [string, string, string][] = [
  ['private', 'Private', 'The group and its projects can only be viewed by members.'],
  ['internal', 'Internal', 'The group and any internal projects can be viewed by any signed-in user.'],
  ['public', 'Public', 'The group and any public projects can be viewed without any authentication.'],
];

function visibilityChoice(current: string): Html {
  return html`<fieldset><legend>Visibility level</legend>
  ${VISIBILITIES.map(([v, label, help]) => html`<label class="check"><input type="radio" name="visibility" value="${v}"${v === current ? html` checked` : ''}> ${label} <span class="muted">&mdash; ${help}</span></label>`)}
</fieldset>`;
}

async function overview(ctx: PageContext, group: any): Promise<Rendered> {
  const [projects, subgroups, members, access] = await Promise.all([
    // the group's own projects: the reference's group page lists shared ones on a tab of their own
    ctx.api.get(`/groups/${group.id}/projects?per_page=50&order_by=last_activity_at&with_shared=false`),
    ctx.api.get(`/groups/${group.id}/subgroups?per_page=50`),
    ctx.api.get(`/groups/${group.id}/members?per_page=50`),
    groupAccessOf(ctx, group),
  ]);
  const mayAddSubgroup = access >= (group.subgroup_creation_level === 'maintainer' ? MAINTAINER : OWNER);
  // project_creation_level: noone, maintainer (the default) or developer
  const mayAddProject = group.project_creation_level !== 'noone' && access >= (group.project_creation_level === 'developer' ? DEVELOPER : MAINTAINER);
  const base = `/groups/${encodePath(group.full_path)}`;
  const subs = subgroups.status === 200 ? (subgroups.body as any[]) : [];
  return {
    title: group.full_name,
    body: html`<div class="profile-head">
  ${avatar(group.avatar_url && sitePath(group.avatar_url), group.name, 'large')}
  <div>
    <h1>${group.full_name}</h1>
    ${group.description ? html`<p class="bio">${group.description}</p>` : ''}
    <p class="muted">Group ID: ${group.id} &middot; ${group.visibility}</p>
  </div>
</div>
<nav class="toolbar" aria-label="Group">
  <a class="button" href="${base}/-/group_members">Members</a>
  <a class="button" href="${base}/-/badges">Badges</a>
</nav>
${
  mayAddSubgroup || mayAddProject
    ? html`<div class="toolbar">
  ${mayAddProject ? html`<a class="button primary" href="/projects/new?namespace_id=${group.id}">New project</a>` : ''}
  ${mayAddSubgroup ? html`<a class="button" href="/groups/new?parent_id=${group.id}">New subgroup</a>` : ''}
  ${access >= OWNER ? html`<a class="button" href="${base}/-/edit">Group settings</a>` : ''}
</div>`
    : ''
}
<h2>Subgroups</h2>
${
  subs.length === 0
    ? html`<p class="muted">No subgroups.</p>`
    : html`<ul class="plain">${subs.map((g) => html`<li><a href="${sitePath(g.web_url)}">${g.name}</a> <span class="muted">${g.visibility}${g.description ? html` &middot; ${g.description}` : ''}</span></li>`)}</ul>`
}
<h2>Projects</h2>
${projectList(projects.status === 200 ? projects.body : [], 'This group has no projects yet.')}
${members.status === 200 ? memberList(members.body as any[]) : ''}`,
  };
}

function memberList(members: any[]): Html {
  return html`<h2>Members</h2>
${
  members.length === 0
    ? html`<p class="muted">No direct members.</p>`
    : html`<table>
  <caption class="visually-hidden">Members</caption>
  <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Expires</th></tr></thead>
  <tbody>
  ${members.map(
    (m) => html`<tr>
    <td><a href="${sitePath(m.web_url)}">${m.name}</a> <span class="muted">@${m.username}</span></td>
    <td>${ROLE_NAMES[m.access_level] ?? m.access_level}</td>
    <td>${m.expires_at ?? html`<span class="muted">Never</span>`}</td>
  </tr>`,
  )}
  </tbody>
</table>`
}`;
}

async function settings(ctx: PageContext, group: any): Promise<Rendered> {
  if ((await groupAccessOf(ctx, group)) < OWNER) throw new PageNotFound();
  const base = `/groups/${encodePath(group.full_path)}`;
  return {
    title: `Settings · ${group.full_name}`,
    body: html`<p class="breadcrumbs"><a href="${base}">${group.full_name}</a></p>
<h1>Group settings</h1>
<section class="panel" aria-labelledby="general-title">
  <h2 id="general-title">Naming, description, visibility</h2>
  <form class="stack" data-api="/groups/${group.id}" data-method="PUT" data-then="show">
    <label><span>Group name</span><input type="text" name="name" required value="${group.name}"></label>
    <label><span>Group description (optional)</span><textarea name="description">${group.description}</textarea></label>
    ${visibilityChoice(group.visibility)}
    <button type="submit" class="primary">Save changes</button>
    <p data-result hidden role="status" class="saved">Group saved.</p>
  </form>
</section>`,
  };
}

/** A group's pages by what follows `{group}/-/` ('' for the group itself). */
const GROUP_PAGES: Record<string, (ctx: PageContext, group: any) => Promise<Rendered>> = {
  '': overview,
  edit: settings,
  group_members: groupMembersPage,
  badges: groupBadgesPage,
};

export function groupRoute(ctx: PageContext, group: any, rest: string): Promise<Rendered> {
  const page = GROUP_PAGES[rest.replace(/\/+$/, '')];
  if (!page) throw new PageNotFound();
  return page(ctx, group);
}

export const groupPages: SitePage[] = [
  {
    path: '/groups/new',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const parentId = Number.parseInt(ctx.query.get('parent_id') ?? '', 10);
      const parent = Number.isInteger(parentId) ? await ctx.api.get(`/groups/${parentId}?with_projects=false`) : null;
      if (parent && parent.status !== 200) throw new PageNotFound();
      return {
        title: parent ? 'New subgroup' : 'New group',
        body: html`<h1>${parent ? html`New subgroup in ${parent.body.full_name}` : 'New group'}</h1>
<form class="stack" data-api="/groups" data-method="POST" data-then="redirect-field:web_url">
  ${parent ? html`<input type="hidden" name="parent_id" data-type="number" value="${parent.body.id}">` : ''}
  <label><span>Group name</span><input type="text" name="name" required></label>
  <label><span>Group URL (path)</span><input type="text" name="path" required></label>
  <label><span>Group description (optional)</span><textarea name="description"></textarea></label>
  ${visibilityChoice('private')}
  <button type="submit" class="primary">Create group</button>
</form>`,
      };
    },
  },
  {
    path: '/groups/*',
    async handler(ctx) {
      const full = ctx.params['*'] ?? '';
      const cut = full.indexOf('/-/');
      const path = (cut < 0 ? full : full.slice(0, cut)).replace(/\/+$/, '');
      if (!path) throw new PageNotFound();
      const g = await ctx.api.get(`/groups/${encodeURIComponent(decodeURIComponent(path))}?with_projects=false`);
      if (g.status !== 200) throw new PageNotFound();
      return groupRoute(ctx, g.body, cut < 0 ? '' : full.slice(cut + 3));
    },
  },
];
