// A project's activity (its events, newest first, from GET /projects/:id/events) and the fork form
// (POST /projects/:id/fork into a namespace the visitor chooses).
import { encodePath, html, type Html } from '../html.js';
import { pagerOf } from '../api.js';
import { PageNotFound, SignInRequired, type ProjectPage } from '../page.js';
import { avatar, shortSha, when } from '../views/common.js';
import { pageNumber, pagerLinks, sitePath } from '../views/lists.js';
import { projectBase } from './repository_refs.js';

/** What happened, in words: "pushed to branch main", "joined", "created". */
function eventWords(e: any, base: string): Html {
  const push = e.push_data;
  if (push) {
    const verb = push.action === 'created' ? 'pushed new' : push.action === 'removed' ? 'deleted' : 'pushed to';
    const ref = push.ref_type === 'tag' ? html`tag <code>${push.ref}</code>` : html`branch <a href="${base}/-/commits/${encodePath(push.ref ?? '')}"><code>${push.ref}</code></a>`;
    const commits =
      push.commit_count > 0 && push.commit_to
        ? html`<br><span class="muted">${push.commit_count} commit${push.commit_count === 1 ? '' : 's'}:</span> <a href="${base}/-/commit/${push.commit_to}"><code>${shortSha(push.commit_to)}</code></a> ${push.commit_title ?? ''}`
        : '';
    return html`${verb} ${ref}${commits}`;
  }
  const target = e.target_type ? html` ${e.target_type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}${e.target_iid ? ` #${e.target_iid}` : ''}${e.target_title ? html` <q>${e.target_title}</q>` : ''}` : '';
  // without a target the event is the project's own: "created project", "joined project"
  return html`${e.action_name}${target || ' project'}`;
}

export const projectActivityPages: ProjectPage[] = [
  {
    path: 'activity',
    async handler(ctx) {
      const p = ctx.project;
      const page = pageNumber(ctx.query);
      const a = await ctx.api.get(`/projects/${p.id}/events?per_page=30&page=${page}`);
      if (a.status === 401) throw new SignInRequired();
      if (a.status !== 200) throw new PageNotFound();
      const base = projectBase(p);
      const events: any[] = a.body;
      return {
        title: `Activity · ${p.name_with_namespace}`,
        section: 'activity',
        body: html`<h1>Activity</h1>
${
  events.length === 0
    ? html`<p class="muted">Nothing has happened in this project yet.</p>`
    : html`<ol class="events">${events.map(
        (e) => html`<li class="event">
  ${avatar(e.author?.avatar_url && sitePath(e.author.avatar_url), e.author?.name ?? e.author_username ?? '?')}
  <div><strong>${e.author ? html`<a href="${sitePath(e.author.web_url)}">${e.author.name}</a>` : (e.author_username ?? 'Someone')}</strong> ${eventWords(e, base)}
  <br><span class="muted">${when(e.created_at)}</span></div>
</li>`,
      )}</ol>`
}
${pagerLinks(pagerOf(a), (n) => `${base}/-/activity?page=${n}`)}`,
      };
    },
  },
  {
    path: 'forks/new',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const p = ctx.project;
      // The groups the visitor may create projects in (developer and up; the API decides for each).
      const groups = await ctx.api.get('/groups?min_access_level=30&order_by=path&sort=asc&per_page=100');
      return {
        title: `Fork · ${p.name_with_namespace}`,
        section: 'overview',
        body: html`<h1>Fork ${p.name}</h1>
<p>A fork is a copy of the project, its repository and settings, in a namespace of yours.</p>
<form class="stack" data-api="/projects/${p.id}/fork" data-method="POST" data-then="redirect-field:web_url" data-saved="Forked.">
  <label><span>Namespace</span><select name="namespace_id" data-type="number">
    <option value="">${ctx.viewer.username} (your personal namespace)</option>
    ${(groups.status === 200 ? (groups.body as any[]) : []).map((g) => html`<option value="${g.id}">${g.full_path}</option>`)}
  </select></label>
  <label><span>Project name</span><input type="text" name="name" value="${p.name}"></label>
  <label><span>Project slug</span><input type="text" name="path" value="${p.path}"></label>
  <button type="submit" class="primary">Fork project</button>
</form>`,
      };
    },
  },
];
