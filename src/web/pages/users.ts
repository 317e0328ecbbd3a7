// A user's page: who they are and their projects.
import { html } from '../html.js';
import type { PageContext, Rendered } from '../page.js';
import { projectList } from '../views/lists.js';

export async function userPage(ctx: PageContext, user: any): Promise<Rendered> {
  const projects = await ctx.api.get(`/users/${user.id}/projects?per_page=50&order_by=last_activity_at`);
  return {
    title: user.name,
    body: html`<h1>${user.name}</h1>
<p class="muted">@${user.username}${user.state && user.state !== 'active' ? html` · ${user.state}` : ''}</p>
<h2>Projects</h2>
${projectList(projects.status === 200 ? projects.body : [], 'No projects to show.')}`,
  };
}
