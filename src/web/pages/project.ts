// A project's overview: what it is, how to clone it, its README.
import { encodePath, html } from '../html.js';
import type { ProjectPage } from '../page.js';
import { when } from '../views/common.js';
import { sitePath } from '../views/lists.js';

export const projectOverviewPages: ProjectPage[] = [
  {
    path: '',
    async handler(ctx) {
      const p = ctx.project;
      const base = `/${encodePath(p.path_with_namespace)}`;
      return {
        title: p.name_with_namespace,
        section: 'overview',
        body: html`<h1>${p.name}</h1>
${p.description ? html`<p>${p.description}</p>` : ''}
<p class="muted">Project ID: ${p.id}${p.visibility ? html` · ${p.visibility}` : ''} · last activity ${when(p.last_activity_at)}</p>
<section class="panel" aria-labelledby="clone-title">
  <h2 id="clone-title">Clone</h2>
  <label><span class="visually-hidden">Clone with HTTP</span><input type="text" id="clone-http" readonly value="${p.http_url_to_repo}"></label>
  <button type="button" data-copy="clone-http">Copy URL</button>
</section>
${p.default_branch ? html`<p><a href="${base}/-/tree/${encodePath(p.default_branch)}">Browse files</a></p>` : html`<p class="muted">The repository is empty.</p>`}
<p><a href="${sitePath(p.web_url)}/-/pipelines">Pipelines</a></p>`,
      };
    },
  },
];
