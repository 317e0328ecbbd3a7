// Runners in the web interface: a project's Settings → CI/CD → Runners (maintainers): the
// commands that register a runner (a runner created here, or the project's registration token),
// its project runners with enable/disable and pause, the other project runners its maintainer
// may enable, and the group and instance runners it can use; and the admin's runner list.
// Every read and write is the REST API as the visitor (/projects/:id/runners, /runners/:id,
// /user/runners, /runners/all).
import { html, type Html } from '../html.js';
import { pagerOf, type ApiAnswer } from '../api.js';
import { PageNotFound, type ProjectPage, type ProjectPageContext, type SitePage } from '../page.js';
import { when } from '../views/common.js';
import { pagerLinks } from '../views/lists.js';
import { settingsTabs } from '../views/settings_nav.js';
import { adminNav, mustGet, requireAdmin } from './admin.js';
import { requireMaintainer } from './project_settings.js';

/** The URL a runner is registered with: the instance's external URL. */
const instanceUrl = (ctx: { c: ProjectPageContext['c'] }): string => ctx.c.config.externalUrl.replace(/\/$/, '');

const STATUS_LABELS: Record<string, string> = { online: 'Online', offline: 'Offline', stale: 'Stale', never_contacted: 'Never contacted' };

function runnerStatus(r: any): Html {
  const label = r.paused ? 'Paused' : (STATUS_LABELS[r.status] ?? r.status);
  return html`<span class="badge status-${r.paused ? 'paused' : r.status}">${label}</span>`;
}

const TYPE_LABELS: Record<string, string> = { instance_type: 'Instance', group_type: 'Group', project_type: 'Project' };

const tags = (r: any): Html =>
  Array.isArray(r.tag_list) && r.tag_list.length ? html`${r.tag_list.map((t: string) => html`<span class="tag">${t}</span> `)}` : html`<span class="muted">none</span>`;

/** A table of runners; `actions` adds a last cell per runner. It takes the focus: on a phone it scrolls by itself. */
function runnerTable(caption: string, runners: any[], actions?: (r: any) => Html, withTags = false): Html {
  if (runners.length === 0) return html`<p class="muted">None.</p>`;
  return html`<table tabindex="0">
  <caption class="visually-hidden">${caption}</caption>
  <thead><tr><th scope="col">Runner</th><th scope="col">Status</th>${withTags ? html`<th scope="col">Tags</th>` : ''}<th scope="col">Last contact</th>${actions ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>
  <tbody>${runners.map(
    (r) => html`<tr data-runner="${r.id}">
    <td><strong>#${r.id}</strong> ${r.description || html`<span class="muted">(no description)</span>`}</td>
    <td>${runnerStatus(r)}</td>
    ${withTags ? html`<td>${tags(r)}</td>` : ''}
    <td>${r.contacted_at === undefined ? '' : r.contacted_at ? when(r.contacted_at) : html`<span class="muted">never</span>`}</td>
    ${actions ? html`<td class="actions" data-action-scope>${actions(r)}</td>` : ''}
  </tr>`,
  )}</tbody>
</table>`;
}

/** The details of each runner (tags, locked, last contact); a runner the visitor may not read is left out. */
async function detailsOf(ctx: ProjectPageContext, runners: any[]): Promise<any[]> {
  const out = await Promise.all(runners.slice(0, 50).map(async (r) => {
    const a = await ctx.api.get(`/runners/${r.id}`);
    return a.status === 200 ? a.body : null;
  }));
  return out.filter((r) => r !== null);
}

const list = async (ctx: ProjectPageContext, path: string): Promise<any[]> => {
  const a = await ctx.api.get(path);
  return a.status === 200 ? (a.body as any[]) : [];
};

function registerSection(ctx: ProjectPageContext): Html {
  const p = ctx.project;
  const url = instanceUrl(ctx);
  return html`<section class="panel" aria-labelledby="new-runner">
  <h2 id="new-runner">New project runner</h2>
  <p class="muted">Creates a runner of this project; its token is shown once. Register it on the machine that runs the jobs with <code>gitlab-runner register</code>.</p>
  <form class="stack" data-api="/user/runners" data-method="POST" data-then="show">
    <input type="hidden" name="runner_type" value="project_type">
    <input type="hidden" name="project_id" value="${p.id}" data-type="number">
    <label><span>Description</span><input type="text" name="description"></label>
    <label><span>Tags (comma-separated)</span><input type="text" name="tag_list" placeholder="linux, docker"></label>
    <label class="check"><input type="checkbox" name="run_untagged" checked> Run untagged jobs</label>
    <label class="check"><input type="checkbox" name="locked" checked> Lock to this project</label>
    <button type="submit" class="primary">Create runner</button>
    <div data-result hidden role="status">
      <p>Runner <strong data-field="id"></strong> created. Register it with:</p>
      <pre class="code-block" id="register-token-command" tabindex="0">gitlab-runner register --url ${url} --token <span data-field="token"></span></pre>
      <button type="button" data-copy="register-token-command">Copy command</button>
    </div>
  </form>
</section>
<section class="panel" aria-labelledby="registration-token">
  <h2 id="registration-token">Registration token</h2>
  <p class="muted">The older way: a runner registers itself with the project's registration token and becomes a project runner.</p>
  ${
    p.runners_token
      ? html`<pre class="code-block" id="register-registration-command" tabindex="0">gitlab-runner register --url ${url} --registration-token ${p.runners_token}</pre>
  <div class="toolbar" data-action-scope>
    <button type="button" data-copy="register-registration-command">Copy command</button>
    <button type="button" class="danger" data-api="/projects/${p.id}/runners/reset_registration_token" data-method="POST" data-confirm="Reset the registration token? Runners not yet registered with the old one can no longer register with it.">Reset registration token</button>
  </div>`
      : html`<p class="muted">This project has no registration token.</p>`
  }
</section>`;
}

export const projectRunnerPages: ProjectPage[] = [
  {
    path: 'settings/ci_cd/runners',
    async handler(ctx) {
      requireMaintainer(ctx);
      const p = ctx.project;
      const base = `/projects/${p.id}/runners`;
      const [assigned, groupRunners, instanceRunners, owned] = await Promise.all([
        list(ctx, `${base}?type=project_type&per_page=100`),
        list(ctx, `${base}?type=group_type&per_page=100`),
        list(ctx, `${base}?type=instance_type&per_page=100`),
        list(ctx, '/runners?type=project_type&per_page=100'),
      ]);
      const assignedIds = new Set(assigned.map((r) => r.id));
      const [projectDetails, others] = await Promise.all([
        detailsOf(ctx, assigned),
        detailsOf(ctx, owned.filter((r) => !assignedIds.has(r.id))).then((rs) => rs.filter((r) => !r.locked)),
      ]);
      const projectActions = (r: any) => html`<button type="button" data-api="/runners/${r.id}" data-method="PUT" data-body="${JSON.stringify({ paused: !r.paused })}" aria-label="${r.paused ? 'Resume' : 'Pause'} runner ${r.id}">${r.paused ? 'Resume' : 'Pause'}</button>
      ${
        r.projects && r.projects.length > 1
          ? html`<button type="button" class="danger" data-api="${base}/${r.id}" data-method="DELETE" data-confirm="Disable runner #${r.id} for this project?" aria-label="Disable runner ${r.id} for this project">Disable for this project</button>`
          : html`<button type="button" class="danger" data-api="/runners/${r.id}" data-method="DELETE" data-confirm="Delete runner #${r.id}? It is used by this project only." aria-label="Delete runner ${r.id}">Delete runner</button>`
      }`;
      const enable = (r: any) =>
        html`<button type="button" data-api="${base}" data-method="POST" data-body="${JSON.stringify({ runner_id: r.id })}" aria-label="Enable runner ${r.id} for this project">Enable for this project</button>`;
      return {
        title: `Runners · CI/CD settings · ${p.name_with_namespace}`,
        section: 'settings',
        body: html`${settingsTabs(p, 'runners')}
<h1>Runners</h1>
<p class="muted">Runners are processes that pick up and run this project's jobs. A job goes to a runner whose tags include the job's tags; untagged jobs only to runners that run untagged jobs.</p>
${registerSection(ctx)}
<section class="panel" aria-labelledby="project-runners">
  <h2 id="project-runners">Project runners</h2>
  <h3>Assigned project runners</h3>
  ${runnerTable('Runners assigned to this project', projectDetails, projectActions, true)}
  <h3>Other available runners</h3>
  <p class="muted">Project runners of your other projects that are not locked to them.</p>
  ${runnerTable('Other available runners', others, enable, true)}
</section>
<section class="panel" aria-labelledby="group-runners">
  <h2 id="group-runners">Group runners</h2>
  <p class="muted">Runners of this project's groups; they are managed in the group.</p>
  ${runnerTable('Group runners', groupRunners)}
</section>
<section class="panel" aria-labelledby="instance-runners">
  <h2 id="instance-runners">Instance runners</h2>
  <p>Instance runners are <strong>${p.shared_runners_enabled ? 'enabled' : 'disabled'}</strong> for this project.</p>
  <div class="toolbar" data-action-scope>
    <button type="button" data-api="/projects/${p.id}" data-method="PUT" data-body="${JSON.stringify({ shared_runners_enabled: !p.shared_runners_enabled })}">${p.shared_runners_enabled ? 'Disable' : 'Enable'} instance runners for this project</button>
  </div>
  ${runnerTable('Instance runners', instanceRunners)}
</section>`,
      };
    },
  },
];

const TYPE_FILTERS: [string, string][] = [
  ['', 'All'],
  ['instance_type', 'Instance'],
  ['group_type', 'Group'],
  ['project_type', 'Project'],
];

export const adminRunnerPages: SitePage[] = [
  {
    path: '/admin/runners',
    async handler(ctx) {
      requireAdmin(ctx);
      const type = ctx.query.get('type') ?? '';
      if (type && !TYPE_FILTERS.some(([t]) => t === type)) throw new PageNotFound();
      const page = Math.max(1, Number.parseInt(ctx.query.get('page') ?? '1', 10) || 1);
      const answer: ApiAnswer = await mustGet(ctx, `/runners/all?per_page=20&page=${page}${type ? `&type=${type}` : ''}`);
      const runners = answer.body as any[];
      const details = await Promise.all(runners.map(async (r) => {
        const a = await ctx.api.get(`/runners/${r.id}`);
        return a.status === 200 ? a.body : r;
      }));
      const filterHref = (t: string) => (t ? `/admin/runners?type=${t}` : '/admin/runners');
      return {
        title: 'Runners · Admin area',
        aside: adminNav('runners'),
        body: html`<h1>Runners</h1>
<p class="muted">Every runner of this instance: the built-in runner (runner #1) and the runners registered with it. New instance runners are created with <code>POST /api/v4/user/runners</code> (<code>runner_type=instance_type</code>) and registered with <code>gitlab-runner register --url ${ctx.c.config.externalUrl.replace(/\/$/, '')} --token &lt;token&gt;</code>.</p>
<nav class="tabs" aria-label="Runner type"><ul>${TYPE_FILTERS.map(([t, label]) => html`<li><a href="${filterHref(t)}"${t === type ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav>
${
  details.length === 0
    ? html`<p class="muted">No runners.</p>`
    : html`<table tabindex="0">
  <caption class="visually-hidden">Runners</caption>
  <thead><tr><th scope="col">Runner</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Tags</th><th scope="col">Version</th><th scope="col">IP address</th><th scope="col">Last contact</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${details.map(
    (r) => html`<tr data-runner="${r.id}">
    <td><strong>#${r.id}</strong> ${r.description || html`<span class="muted">(no description)</span>`}</td>
    <td>${TYPE_LABELS[r.runner_type] ?? r.runner_type}</td>
    <td>${runnerStatus(r)}</td>
    <td>${tags(r)}</td>
    <td>${r.version ?? ''}</td>
    <td class="mono">${r.ip_address ?? ''}</td>
    <td>${r.contacted_at ? when(r.contacted_at) : html`<span class="muted">never</span>`}</td>
    <td class="actions" data-action-scope>${
      r.id === 1
        ? html`<span class="muted">Built in</span>`
        : html`<button type="button" data-api="/runners/${r.id}" data-method="PUT" data-body="${JSON.stringify({ paused: !r.paused })}" aria-label="${r.paused ? 'Resume' : 'Pause'} runner ${r.id}">${r.paused ? 'Resume' : 'Pause'}</button>
      <button type="button" class="danger" data-api="/runners/${r.id}" data-method="DELETE" data-confirm="Delete runner #${r.id}?" aria-label="Delete runner ${r.id}">Delete</button>`
    }</td>
  </tr>`,
  )}</tbody>
</table>`
}
${pagerLinks(pagerOf(answer), (n) => `${filterHref(type)}${type ? '&' : '?'}page=${n}`)}`,
      };
    },
  },
];
