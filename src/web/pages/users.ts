// A user's page: who they are (avatar, name, bio and links, as their profile gives them), their
// projects and their recent activity — all as the visitor may see them through the API.
import { encodePath, html, type Html } from '../html.js';
import type { PageContext, Rendered } from '../page.js';
import { avatar, when } from '../views/common.js';
import { projectList, sitePath } from '../views/lists.js';

export async function userPage(ctx: PageContext, user: any): Promise<Rendered> {
  const [profile, projects, events] = await Promise.all([
    ctx.api.get(`/users/${user.id}`),
    ctx.api.get(`/users/${user.id}/projects?per_page=50&order_by=last_activity_at`),
    ctx.api.get(`/users/${user.id}/events?per_page=20`),
  ]);
  const u = profile.status === 200 ? profile.body : user;
  const activity = events.status === 200 ? (events.body as any[]) : [];
  const names = await projectNames(ctx, activity);
  const link = (href: string, text: string) => html`<li><a href="${href}" rel="nofollow noopener">${text}</a></li>`;
  const links = [
    u.website_url ? link(/^https?:\/\//.test(u.website_url) ? u.website_url : `https://${u.website_url}`, u.website_url) : '',
    u.public_email ? link(`mailto:${u.public_email}`, u.public_email) : '',
    u.twitter ? link(`https://twitter.com/${u.twitter}`, `Twitter: ${u.twitter}`) : '',
    u.linkedin ? link(`https://www.linkedin.com/in/${u.linkedin}`, `LinkedIn: ${u.linkedin}`) : '',
  ].filter((l) => l !== '');
  const work = [u.job_title, u.organization].filter(Boolean).join(' at ');
  return {
    title: u.name,
    body: html`<div class="profile-head">
  ${avatar(u.avatar_url && sitePath(u.avatar_url), u.name, 'large')}
  <div>
    <h1>${u.name}</h1>
    <p class="muted">@${u.username}${u.pronouns ? html` &middot; ${u.pronouns}` : ''}${u.state && u.state !== 'active' ? html` &middot; ${u.state}` : ''}${u.created_at ? html` &middot; Member since ${u.created_at.slice(0, 10)}` : ''}</p>
    ${u.bio ? html`<p class="bio">${u.bio}</p>` : ''}
    ${work || u.location ? html`<p>${work}${work && u.location ? ' · ' : ''}${u.location ?? ''}</p>` : ''}
    ${links.length ? html`<ul class="plain inline-list" aria-label="Links">${links}</ul>` : ''}
  </div>
</div>
<h2>Projects</h2>
${projectList(projects.status === 200 ? projects.body : [], 'No projects to show.')}
<h2>Activity</h2>
${activityList(activity, names)}`,
  };
}

/** The projects events refer to, by id, as the visitor may see them (a few in-process reads). */
async function projectNames(ctx: PageContext, events: any[]): Promise<Map<number, any>> {
  const ids = [...new Set(events.map((e) => e.project_id).filter((id): id is number => typeof id === 'number'))];
  const out = new Map<number, any>();
  await Promise.all(
    ids.map(async (id) => {
      const p = await ctx.api.get(`/projects/${id}?license=false&statistics=false`);
      if (p.status === 200) out.set(id, p.body);
    }),
  );
  return out;
}

function activityList(events: any[], projects: Map<number, any>): Html {
  if (events.length === 0) return html`<p class="muted">No recent activity.</p>`;
  return html`<ul class="activity">
  ${events.map((e) => {
    const p = projects.get(e.project_id);
    const where = p ? html` at <a href="${sitePath(p.web_url)}">${p.name_with_namespace}</a>` : '';
    const push = e.push_data;
    const what = push
      ? html`${e.action_name} ${push.ref_type} ${p && push.ref && push.action !== 'removed' ? html`<a href="${sitePath(p.web_url)}/-/tree/${encodePath(push.ref)}">${push.ref}</a>` : (push.ref ?? '')}`
      : html`${e.action_name}${e.target_type ? html` ${e.target_type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}` : ''}${e.target_title ? html` &ldquo;${e.target_title}&rdquo;` : ''}`;
    return html`<li>${when(e.created_at)} &mdash; ${what}${where}${push?.commit_title ? html`<br><span class="muted">${push.commit_title}</span>` : ''}</li>`;
  })}
</ul>`;
}
