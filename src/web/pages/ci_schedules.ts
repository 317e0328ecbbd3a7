// Pipelines → Schedules: the project's pipeline schedules (whoever the API lets read them), a new
// schedule, a schedule's edit page with its variables, and the actions the reference offers on
// each: play (run now), take ownership (maintainers, of another's schedule), delete. The API
// decides every write; the page offers what the visitor's role allows.
import { encodePath, html, type Html } from '../html.js';
import { MAINTAINER, DEVELOPER } from '../project_nav.js';
import { PageNotFound, SignInRequired, type ProjectPage, type ProjectPageContext } from '../page.js';
import { when } from '../views/common.js';

const base = (p: any): string => `/${encodePath(p.path_with_namespace)}/-/pipeline_schedules`;

/** Common cron patterns, as the reference's form offers them. */
const PATTERNS: [string, string][] = [
  ['0 4 * * *', 'Every day (at 4:00am)'],
  ['0 4 * * 0', 'Every week (Sunday at 4:00am)'],
  ['0 4 1 * *', 'Every month (Day 1 at 4:00am)'],
];

function scheduleForm(p: any, s: any | null, branches: string[]): Html {
  const api = s ? `/projects/${p.id}/pipeline_schedules/${s.id}` : `/projects/${p.id}/pipeline_schedules`;
  const ref = s?.ref ?? p.default_branch ?? 'main';
  const refs = branches.includes(ref) ? branches : [ref, ...branches];
  return html`<form class="stack" data-api="${api}" data-method="${s ? 'PUT' : 'POST'}" data-then="redirect:${base(p)}" aria-label="${s ? 'Edit pipeline schedule' : 'New pipeline schedule'}">
  <label><span>Description</span><input type="text" name="description" required value="${s?.description ?? ''}"></label>
  <label><span>Interval pattern (cron)</span><input type="text" name="cron" required class="mono" value="${s?.cron ?? PATTERNS[0]![0]}" list="cron-patterns"></label>
  <datalist id="cron-patterns">${PATTERNS.map(([v, l]) => html`<option value="${v}">${l}</option>`)}</datalist>
  <p class="muted">Five fields: minute, hour, day of month, month, day of week (crontab syntax).</p>
  <label><span>Cron timezone</span><input type="text" name="cron_timezone" value="${s?.cron_timezone ?? 'UTC'}"></label>
  <label><span>Target branch or tag</span><select name="ref">${refs.map((b) => html`<option value="${b}"${b === ref ? html` selected` : ''}>${b}</option>`)}</select></label>
  <label><input type="checkbox" name="active"${!s || s.active ? html` checked` : ''}> Activated</label>
  <button type="submit" class="primary">${s ? 'Save changes' : 'Create pipeline schedule'}</button>
</form>`;
}

function actions(ctx: ProjectPageContext, s: any): Html {
  const p = ctx.project;
  const api = `/projects/${p.id}/pipeline_schedules/${s.id}`;
  const mine = ctx.viewer !== null && s.owner?.id === ctx.viewer.id;
  const label = html`<span class="visually-hidden"> ${s.description}</span>`;
  return html`<div class="toolbar" data-action-scope>
  ${ctx.access >= DEVELOPER ? html`<button type="button" data-api="${api}/play" data-method="POST" data-then="show">Run now${label}</button>` : ''}
  ${!mine && ctx.access >= MAINTAINER ? html`<button type="button" data-api="${api}/take_ownership" data-method="POST" data-confirm="Take ownership of ${s.description}? Its pipelines will then run as you.">Take ownership${label}</button>` : ''}
  ${mine || ctx.access >= 50 ? html`<a class="button" href="${base(p)}/${s.id}/edit">Edit${label}</a>` : ''}
  ${mine || ctx.access >= MAINTAINER ? html`<button type="button" class="danger" data-api="${api}" data-method="DELETE" data-confirm="Delete the schedule ${s.description}?">Delete${label}</button>` : ''}
  <p data-result hidden class="ok-message">Pipeline scheduled to run now. It appears in the pipeline list once it starts.</p>
</div>`;
}

async function branchNames(ctx: ProjectPageContext): Promise<string[]> {
  const b = await ctx.api.get(`/projects/${ctx.project.id}/repository/branches?per_page=100`);
  return b.status === 200 ? b.body.map((x: any) => x.name) : [];
}

export const scheduleWebPages: ProjectPage[] = [
  {
    path: 'pipeline_schedules',
    async handler(ctx) {
      const p = ctx.project;
      const a = await ctx.api.get(`/projects/${p.id}/pipeline_schedules?per_page=100`);
      if (a.status !== 200) {
        if (!ctx.viewer) throw new SignInRequired();
        throw new PageNotFound();
      }
      const list: any[] = a.body;
      return {
        title: `Pipeline schedules · ${p.name_with_namespace}`,
        section: 'pipelines',
        body: html`<p class="breadcrumbs"><a href="/${encodePath(p.path_with_namespace)}/-/pipelines">Pipelines</a> / Schedules</p>
<div class="toolbar"><h1>Schedules</h1>${ctx.access >= DEVELOPER ? html`<a class="button primary" href="${base(p)}/new">New schedule</a>` : ''}</div>
${
  list.length === 0
    ? html`<p class="muted">No pipeline schedules yet. A schedule runs a pipeline of a branch or tag at the times its cron pattern names.</p>`
    : html`<table>
  <caption class="visually-hidden">Pipeline schedules</caption>
  <thead><tr><th scope="col">Description</th><th scope="col">Target</th><th scope="col">Interval</th><th scope="col">Next run</th><th scope="col">Owner</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${list.map(
    (s) => html`<tr>
    <td>${s.description}</td>
    <td class="mono">${s.ref}</td>
    <td><span class="mono">${s.cron}</span> <span class="muted">${s.cron_timezone}</span></td>
    <td>${s.active && s.next_run_at ? when(s.next_run_at) : html`<span class="muted">Inactive</span>`}</td>
    <td>${s.owner ? s.owner.username : html`<span class="muted">None</span>`}</td>
    <td>${s.active ? 'Active' : 'Inactive'}</td>
    <td>${actions(ctx, s)}</td>
  </tr>`,
  )}</tbody>
</table>`
}`,
      };
    },
  },
  {
    path: 'pipeline_schedules/new',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      if (ctx.access < DEVELOPER) throw new PageNotFound();
      const p = ctx.project;
      return {
        title: `New pipeline schedule · ${p.name_with_namespace}`,
        section: 'pipelines',
        body: html`<p class="breadcrumbs"><a href="${base(p)}">Schedules</a> / New</p>
<h1>Schedule a new pipeline</h1>
<section class="panel">${scheduleForm(p, null, await branchNames(ctx))}</section>`,
      };
    },
  },
  {
    path: 'pipeline_schedules/:id/edit',
    async handler(ctx) {
      if (!ctx.viewer) throw new SignInRequired();
      const p = ctx.project;
      const id = Number(ctx.params.id);
      if (!Number.isInteger(id) || id <= 0) throw new PageNotFound();
      const a = await ctx.api.get(`/projects/${p.id}/pipeline_schedules/${id}`);
      if (a.status !== 200) throw new PageNotFound();
      const s = a.body;
      const api = `/projects/${p.id}/pipeline_schedules/${id}/variables`;
      return {
        title: `Edit pipeline schedule · ${p.name_with_namespace}`,
        section: 'pipelines',
        body: html`<p class="breadcrumbs"><a href="${base(p)}">Schedules</a> / Edit</p>
<h1>Edit pipeline schedule</h1>
<section class="panel">${scheduleForm(p, s, await branchNames(ctx))}</section>
${s.variables ? variablesPanel(api, s.variables) : ''}`,
      };
    },
  },
];

/** The schedule's variables, for those the API shows them to (maintainers, the schedule's owner). */
function variablesPanel(api: string, variables: any[]): Html {
  return html`<section class="panel" aria-labelledby="schedule-vars-title">
  <h2 id="schedule-vars-title">Variables</h2>
  <p class="muted">Given to every pipeline this schedule runs, above the project's CI/CD variables.</p>
  ${
    variables.length === 0
      ? html`<p class="muted">No variables.</p>`
      : html`<ul class="plain">${variables.map(
          (v: any) => html`<li data-action-scope><span class="mono">${v.key}</span> <span class="muted">${v.variable_type === 'file' ? 'File' : 'Variable'}</span>
      <button type="button" class="danger" data-api="${api}/${encodeURIComponent(v.key)}" data-method="DELETE">Remove variable<span class="visually-hidden"> ${v.key}</span></button></li>`,
        )}</ul>`
  }
  <form class="stack" data-api="${api}" data-method="POST" aria-label="Add schedule variable">
    <label><span>Variable key</span><input type="text" name="key" required pattern="[A-Za-z0-9_]+"></label>
    <label><span>Variable value</span><input type="text" name="value" required></label>
    <label><span>Variable type</span><select name="variable_type"><option value="env_var">Variable</option><option value="file">File</option></select></label>
    <button type="submit">Add variable</button>
  </form>
</section>`;
}
