// A group's page: its projects and subgroups.
import { html } from '../html.js';
import type { PageContext, Rendered, SitePage } from '../page.js';
import { PageNotFound } from '../page.js';
import { projectList } from '../views/lists.js';

export async function groupPage(ctx: PageContext, group: any): Promise<Rendered> {
  const projects = await ctx.api.get(`/groups/${group.id}/projects?per_page=50&order_by=last_activity_at`);
  return {
    title: group.full_name,
    body: html`<h1>${group.full_name}</h1>
${group.description ? html`<p>${group.description}</p>` : ''}
<p class="muted">Group ID: ${group.id} · ${group.visibility}</p>
<h2>Projects</h2>
${projectList(projects.body ?? [], 'This group has no projects yet.')}`,
  };
}

export const groupPages: SitePage[] = [
  {
    path: '/groups/*',
    async handler(ctx) {
      const path = ctx.params['*']?.replace(/\/+$/, '');
      if (!path) throw new PageNotFound();
      const g = await ctx.api.get(`/groups/${encodeURIComponent(decodeURIComponent(path))}`);
      if (g.status !== 200) throw new PageNotFound();
      return groupPage(ctx, g.body);
    },
  },
];
