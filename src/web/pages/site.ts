// Pages outside any project: the dashboard (projects, groups), explore (projects, groups), a new project.
import { html } from '../html.js';
import { pagerOf } from '../api.js';
import { SignInRequired, type SitePage } from '../page.js';
import { groupList, pageNumber, pagerLinks, projectList } from '../views/lists.js';

export const sitePages: SitePage[] = [
  {
    path: '/',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      return dashboard(ctx);
    },
  },
  {
    path: '/dashboard/projects',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      return dashboard(ctx);
    },
  },
  {
    path: '/dashboard/groups',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const page = pageNumber(ctx.query);
      // the groups the viewer is a member of, as the reference's "Your groups"
      const a = await ctx.api.get(`/groups?min_access_level=10&order_by=name&sort=asc&per_page=20&page=${page}`);
      return {
        title: 'Groups',
        body: html`<div class="toolbar"><h1>Your groups</h1><a class="button primary" href="/groups/new">New group</a></div>
${groupList(a.body ?? [], 'You are not a member of any group yet.')}
${pagerLinks(pagerOf(a), (n) => `/dashboard/groups?page=${n}`)}
<p><a href="/explore/groups">Explore groups</a></p>`,
      };
    },
  },
  {
    path: '/explore/projects',
    async handler(ctx) {
      const page = pageNumber(ctx.query);
      const a = await ctx.api.get(`/projects?order_by=last_activity_at&per_page=20&page=${page}`);
      return {
        title: 'Explore projects',
        body: html`<h1>Explore projects</h1>${exploreTabs('projects')}${projectList(a.body ?? [])}${pagerLinks(pagerOf(a), (n) => `/explore/projects?page=${n}`)}`,
      };
    },
  },
  {
    path: '/explore/groups',
    async handler(ctx) {
      const page = pageNumber(ctx.query);
      const a = await ctx.api.get(`/groups?all_available=true&order_by=name&sort=asc&per_page=20&page=${page}`);
      return {
        title: 'Explore groups',
        body: html`<h1>Explore groups</h1>${exploreTabs('groups')}${groupList(a.body ?? [])}${pagerLinks(pagerOf(a), (n) => `/explore/groups?page=${n}`)}`,
      };
    },
  },
  {
    path: '/projects/new',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      // The groups the viewer may create projects in (developer and up; the API decides for each).
      const groups = await ctx.api.get('/groups?min_access_level=30&order_by=path&sort=asc&per_page=100');
      const chosen = Number(ctx.query.get('namespace_id')) || null;
      return {
        title: 'New project',
        body: html`<h1>New project</h1>
<form class="stack" data-api="/projects" data-method="POST" data-then="redirect-field:web_url">
  <label><span>Project name</span><input type="text" name="name" required></label>
  <label><span>Namespace</span><select name="namespace_id" data-type="number">
    <option value="">${ctx.viewer.username} (your personal namespace)</option>
    ${(groups.status === 200 ? (groups.body as any[]) : []).map(
      (g) => html`<option value="${g.id}"${g.id === chosen ? html` selected` : ''}>${g.full_path}</option>`,
    )}
  </select></label>
  <label><span>Project slug (optional)</span><input type="text" name="path"></label>
  <label><span>Description (optional)</span><textarea name="description"></textarea></label>
  <fieldset>
    <legend>Visibility</legend>
    <label><input type="radio" name="visibility" value="private" checked> Private</label>
    <label><input type="radio" name="visibility" value="internal"> Internal</label>
    <label><input type="radio" name="visibility" value="public"> Public</label>
  </fieldset>
  <label><input type="checkbox" name="initialize_with_readme"> Initialize repository with a README</label>
  <button type="submit" class="primary">Create project</button>
</form>`,
      };
    },
  },
];

function exploreTabs(current: 'projects' | 'groups') {
  const tab = (name: typeof current, label: string) => html`<a class="button" href="/explore/${name}"${name === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="toolbar" aria-label="Explore">${tab('projects', 'Projects')}${tab('groups', 'Groups')}</nav>`;
}

async function dashboard(ctx: Parameters<SitePage['handler']>[0]) {
  const page = pageNumber(ctx.query);
  const a = await ctx.api.get(`/projects?membership=true&order_by=last_activity_at&per_page=20&page=${page}`);
  return {
    title: 'Projects',
    body: html`<div class="toolbar"><h1>Your projects</h1><a class="button primary" href="/projects/new">New project</a></div>
${projectList(a.body ?? [], 'You are not a member of any project yet.')}
${pagerLinks(pagerOf(a), (n) => `/dashboard/projects?page=${n}`)}`,
  };
}
