// The CI pages at the URLs the API hands out: the pipelines list, a pipeline (its stage graph,
// live while it runs; its test report), a job (its live log, actions, artifacts). Everything is
// read through the REST API as the visitor, but jobs and logs (below); writes are the API's own
// endpoints, called by the browser.
import { pagerOf, type ApiAnswer, type ApiClient } from '../api.js';
import { encodePath, html, raw, type Html } from '../html.js';
import { NOT_FOUND, PageNotFound, SENT, sendJson, unlessHidden, type PageOutcome, type ProjectPage, type ProjectPageContext } from '../page.js';
import { DEVELOPER, OWNER } from '../project_nav.js';
import { logHtml, type TraceTime } from '../views/ansi.js';
import { duration, liveDuration, statusBadge, when } from '../views/common.js';
import { pageNumber, pagerLinks, sitePath } from '../views/lists.js';
import { isJobActive, jobFacts } from '../views/job.js';
import { isFinished, pipelineLive, stagesOf } from '../views/pipeline_graph.js';
import { pipelineRow } from '../views/pipelines_list.js';
import { getPipeline, mayUpdatePipeline, pipelineRowViews } from '../../domain/ci/pipelines.js';
import { getBridge, getJob, jobTrace, jobTraceTimes, listProjectJobs } from '../../domain/ci/jobs.js';
import { presentBridges, presentJob, presentJobs } from '../../api/jobs/present.js';

/** The API's answer, or the 404 page for anything it refuses. */
async function must(api: ApiClient, path: string): Promise<any> {
  const a = await api.get(path);
  if (a.status !== 200) throw new PageNotFound();
  return a.body;
}

/** Every page of a list (a pipeline's jobs), as the browser also reads them. */
async function allPages(api: ApiClient, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; page <= 50; page++) {
    const a: ApiAnswer = await api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
    if (a.status !== 200) throw new PageNotFound();
    out.push(...a.body);
    if (!pagerOf(a).nextPage) break;
  }
  return out;
}

/** Every page of a list the page can do without (the graph's needs): null when it cannot be read. */
async function allPagesOrNull(api: ApiClient, path: string): Promise<any[] | null> {
  try {
    return await allPages(api, path);
  } catch (e) {
    if (e instanceof PageNotFound) return null;
    throw e;
  }
}

const idParam = (ctx: ProjectPageContext): number => {
  if (!/^\d{1,12}$/.test(ctx.params.id)) throw new PageNotFound();
  return Number(ctx.params.id);
};

const base = (ctx: ProjectPageContext): string => `/${encodePath(ctx.project.path_with_namespace)}`;

/**
 * Key/value rows for a list of variables (client/forms.ts sends them as `list: [{key, value…}]`),
 * with the variable type when the endpoint takes one; "Add variable" adds a row.
 */
function variableRows(list: string, withType: boolean): Html {
  return html`<fieldset class="variables" data-list="${list}">
  <legend>Variables</legend>
  <div class="variable-row" data-item>
    <label><span>Key</span><input type="text" data-item-field="key" autocomplete="off" spellcheck="false"></label>
    <label><span>Value</span><input type="text" data-item-field="value" autocomplete="off" spellcheck="false"></label>
    ${withType ? html`<label><span>Type</span><select data-item-field="variable_type"><option value="env_var">Variable</option><option value="file">File</option></select></label>` : ''}
  </div>
  <button type="button" data-add-item>Add variable</button>
</fieldset>`;
}

// ---- pipelines list ----

const SCOPES: { scope: string; label: string }[] = [
  { scope: '', label: 'All' },
  { scope: 'running', label: 'Running' },
  { scope: 'pending', label: 'Pending' },
  { scope: 'finished', label: 'Finished' },
  { scope: 'branches', label: 'Branches' },
  { scope: 'tags', label: 'Tags' },
];
const STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'];

async function pipelinesList(ctx: ProjectPageContext) {
  const p = ctx.project;
  const scope = SCOPES.some((s) => s.scope === ctx.query.get('scope')) ? ctx.query.get('scope')! : '';
  const status = STATUSES.includes(ctx.query.get('status') ?? '') ? ctx.query.get('status')! : '';
  // `?ref=` is where a pipeline badge's link leads
  const ref = ctx.query.get('ref') ?? '';
  const page = pageNumber(ctx.query);
  const filter = (more: Record<string, string>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries({ scope, status, ref, ...more })) if (v) q.set(k, v);
    const s = q.toString();
    return `${base(ctx)}/-/pipelines${s ? `?${s}` : ''}`;
  };
  const query = new URLSearchParams({ per_page: '20', page: String(page), ...(scope ? { scope } : {}), ...(status ? { status } : {}), ...(ref ? { ref } : {}) });
  const a = await ctx.api.get(`/projects/${p.id}/pipelines?${query}`);
  if (a.status !== 200) throw new PageNotFound();
  // The list form has no user or duration, and no jobs: the page's rows read them in one go
  // (three queries for 20 pipelines, their jobs however many), as the visitor.
  const list: any[] = a.body;
  const views = new Map((await pipelineRowViews(ctx.c, await ctx.actor(), p.id, list.map((r) => r.id))).map((v) => [v.pipeline.id, v]));
  const rows = list.map((row) => {
    const v = views.get(row.id);
    if (!v) return pipelineRow(row, null, null);
    const { pipeline, user, jobs } = v;
    const shown = { ...row, user: user && { name: user.name }, started_at: pipeline.started_at, duration: pipeline.duration === null ? null : Math.round(pipeline.duration) };
    return pipelineRow(shown, jobs.map((j) => ({ ...j, allow_failure: !!j.allow_failure })), []);
  });
  const runForm =
    ctx.access >= DEVELOPER && p.default_branch !== undefined && !p.archived
      ? html`<details class="panel run-pipeline">
  <summary>Run a new pipeline</summary>
  <form class="stack" data-api="/projects/${p.id}/pipeline" data-method="POST" data-then="redirect-field:web_url">
    <label><span>Run for branch or tag</span><input type="text" name="ref" required value="${p.default_branch ?? ''}"></label>
    ${variableRows('variables', true)}
    <button type="submit" class="primary">Run pipeline</button>
  </form>
</details>`
      : '';
  return {
    title: `Pipelines · ${p.name_with_namespace}`,
    section: 'pipelines',
    body: html`<div class="toolbar"><h1>Pipelines</h1><a class="button" href="${base(ctx)}/-/jobs">Jobs</a><a class="button" href="${base(ctx)}/-/pipeline_schedules">Schedules</a></div>
<nav class="tabs" aria-label="Pipeline scope"><ul>${SCOPES.map(
      (s) => html`<li><a href="${filter({ scope: s.scope, page: '' })}"${s.scope === scope ? raw(' aria-current="page"') : ''}>${s.label}</a></li>`,
    )}</ul></nav>
${ref ? html`<p class="toolbar">Pipelines for <code>${ref}</code> <a href="${filter({ ref: '', page: '' })}">Show all refs</a></p>` : ''}
<form class="toolbar" method="get" action="${base(ctx)}/-/pipelines">
  ${scope ? html`<input type="hidden" name="scope" value="${scope}">` : ''}
  ${ref ? html`<input type="hidden" name="ref" value="${ref}">` : ''}
  <label for="status-filter">Status</label>
  <select id="status-filter" name="status">
    <option value="">Any status</option>
    ${STATUSES.map((s) => html`<option value="${s}"${s === status ? raw(' selected') : ''}>${s.replace(/_/g, ' ')}</option>`)}
  </select>
  <button type="submit">Filter</button>
</form>
${runForm}
${
  rows.length === 0
    ? html`<p class="muted">No pipelines to show.</p>`
    : html`<table class="pipelines" data-pipelines-live data-project-id="${p.id}">
  <caption class="visually-hidden">Pipelines</caption>
  <thead><tr><th scope="col">Status</th><th scope="col">Pipeline</th><th scope="col">Ref and commit</th><th scope="col">Source</th><th scope="col">Stages</th><th scope="col">Duration</th><th scope="col">Created</th></tr></thead>
  <tbody>${rows}</tbody>
</table>`
}
${pagerLinks(pagerOf(a), (n) => filter({ page: String(n) }))}`,
  };
}

// ---- a pipeline ----

function pipelineTabs(ctx: ProjectPageContext, id: number, current: 'pipeline' | 'tests', testCount: number | null): Html {
  const at = `${base(ctx)}/-/pipelines/${id}`;
  return html`<nav class="tabs" aria-label="Pipeline"><ul>
  <li><a href="${at}"${current === 'pipeline' ? raw(' aria-current="page"') : ''}>Pipeline</a></li>
  <li><a href="${at}/test_report"${current === 'tests' ? raw(' aria-current="page"') : ''}>Tests${testCount === null ? '' : html` <span class="count">${testCount}</span>`}</a></li>
</ul></nav>`;
}

function pipelineActions(ctx: ProjectPageContext, pl: any, mayAct: boolean): Html {
  if (!mayAct) return html``;
  const at = `/projects/${ctx.project.id}/pipelines/${pl.id}`;
  // Deleting is the owners' (the API's rule; an administrator counts as one here too).
  return html`<div class="toolbar" data-action-scope>
  <button type="button" data-api="${at}/retry" data-method="POST" data-saved="Pipeline retried.">Retry</button>
  ${isFinished(pl.status) ? '' : html`<button type="button" class="danger" data-api="${at}/cancel" data-method="POST" data-while-active data-saved="Pipeline canceled.">Cancel pipeline</button>`}
  ${ctx.access >= OWNER ? html`<button type="button" class="danger" data-api="${at}" data-method="DELETE" data-confirm="Delete pipeline #${pl.id} with its jobs, logs and artifacts? This cannot be undone." data-then="redirect:${base(ctx)}/-/pipelines">Delete</button>` : ''}
</div>`;
}

/** Whether the visitor may retry, cancel and play the pipeline's jobs (the API's rule, ref included). */
async function mayAct(ctx: ProjectPageContext, pipelineId: number): Promise<boolean> {
  const actor = ctx.access >= DEVELOPER ? await ctx.actor() : null;
  return actor !== null && (await unlessHidden(mayUpdatePipeline(ctx.c, actor, ctx.project.id, pipelineId))) === true;
}

/** A child pipeline's parent (the pipeline whose trigger job made it), read as the visitor; null when none is readable. */
async function parentOf(ctx: ProjectPageContext, id: number): Promise<any | null> {
  const parentId = (await unlessHidden(getPipeline(ctx.c, await ctx.actor(), ctx.project.id, id)))?.pipeline.parent_pipeline_id;
  if (!parentId) return null;
  const a = await ctx.api.get(`/projects/${ctx.project.id}/pipelines/${parentId}`);
  return a.status === 200 ? a.body : null;
}

async function pipelineHeader(ctx: ProjectPageContext, id: number) {
  const pl = await must(ctx.api, `/projects/${ctx.project.id}/pipelines/${id}`);
  const summary = await ctx.api.get(`/projects/${ctx.project.id}/pipelines/${id}/test_report_summary`);
  const testCount = summary.status === 200 ? (summary.body.total?.count ?? 0) : null;
  return { pl, testCount };
}

async function pipelinePage(ctx: ProjectPageContext) {
  const id = idParam(ctx);
  const pid = ctx.project.id;
  const [{ pl, testCount }, jobs, bridges, needs] = await Promise.all([
    pipelineHeader(ctx, id),
    allPages(ctx.api, `/projects/${pid}/pipelines/${id}/jobs`),
    allPages(ctx.api, `/projects/${pid}/pipelines/${id}/bridges`),
    allPagesOrNull(ctx.api, `/projects/${pid}/pipelines/${id}/needs`),
  ]);
  const child = pl.source === 'parent_pipeline';
  const parent = child ? await parentOf(ctx, pl.id) : null;
  // the API's rule for retry, cancel and play: developer, and push or merge rights on a protected ref
  const actions = await mayAct(ctx, pl.id);
  return {
    title: `Pipeline #${id} · ${ctx.project.name_with_namespace}`,
    section: 'pipelines',
    body: html`<p class="breadcrumbs"><a href="${base(ctx)}/-/pipelines">Pipelines</a> / ${parent ? html`<a href="${sitePath(parent.web_url)}">#${parent.id}</a> / ` : ''}#${id}</p>
<div class="toolbar"><h1>Pipeline #${id}</h1>${pipelineActions(ctx, pl, actions)}</div>
${child ? html`<p class="child-of">This is a child pipeline${parent ? html` of <a href="${sitePath(parent.web_url)}">pipeline #${parent.id}</a>` : ''}.</p>` : ''}
${pipelineTabs(ctx, id, 'pipeline', testCount)}
<div data-pipeline-live data-project-id="${pid}" data-pipeline-id="${id}" data-status="${pl.status}"${actions ? raw(' data-actions') : ''} aria-live="off">
${pipelineLive({ pipeline: pl, jobs, bridges, needs, actions })}
</div>
<p class="muted live-note" data-live-note>${isFinished(pl.status) ? '' : 'Statuses update while the pipeline runs.'}</p>`,
  };
}

async function testReportPage(ctx: ProjectPageContext) {
  const id = idParam(ctx);
  const [{ pl, testCount }, report] = await Promise.all([pipelineHeader(ctx, id), must(ctx.api, `/projects/${ctx.project.id}/pipelines/${id}/test_report`)]);
  const suites: any[] = report.test_suites ?? [];
  return {
    title: `Tests · Pipeline #${id} · ${ctx.project.name_with_namespace}`,
    section: 'pipelines',
    body: html`<p class="breadcrumbs"><a href="${base(ctx)}/-/pipelines">Pipelines</a> / <a href="${sitePath(pl.web_url)}">#${id}</a></p>
<div class="toolbar"><h1>Pipeline #${id}</h1>${statusBadge(pl.status)}</div>
${pipelineTabs(ctx, id, 'tests', testCount)}
<p class="test-totals"><strong>${report.total_count}</strong> tests &middot;
  <span class="status-failed">${report.failed_count} failed</span> &middot;
  <span class="status-failed">${report.error_count} errors</span> &middot;
  <span class="muted">${report.skipped_count} skipped</span> &middot;
  <span class="status-success">${report.success_count} passed</span> &middot;
  ${seconds(report.total_time)}</p>
${
  suites.length === 0
    ? html`<p class="muted">There are no test reports for this pipeline.</p>`
    : html`<table>
  <caption class="visually-hidden">Test suites</caption>
  <thead><tr><th scope="col">Suite</th><th scope="col">Duration</th><th scope="col">Failed</th><th scope="col">Errors</th><th scope="col">Skipped</th><th scope="col">Passed</th><th scope="col">Total</th></tr></thead>
  <tbody>${suites.map(
    (s) => html`<tr><th scope="row"><a href="#suite-${suites.indexOf(s)}">${s.name}</a></th><td>${seconds(s.total_time)}</td><td>${s.failed_count}</td><td>${s.error_count}</td><td>${s.skipped_count}</td><td>${s.success_count}</td><td>${s.total_count}</td></tr>`,
  )}</tbody>
</table>
${suites.map((s, i) => suiteSection(s, i))}`
}`,
  };
}

function suiteSection(s: any, i: number): Html {
  const cases: any[] = [...(s.test_cases ?? [])].sort((a, b) => caseRank(a.status) - caseRank(b.status));
  return html`<section class="test-suite" aria-labelledby="suite-${i}">
<h2 id="suite-${i}">${s.name}</h2>
${s.suite_error ? html`<p class="flash" role="alert">${s.suite_error}</p>` : ''}
<table>
  <caption class="visually-hidden">Test cases of ${s.name}</caption>
  <thead><tr><th scope="col">Status</th><th scope="col">Test</th><th scope="col">Class</th><th scope="col">Duration</th></tr></thead>
  <tbody>${cases.map(
    (c) => html`<tr class="test-case" data-status="${c.status}">
    <td>${statusBadge(c.status)}</td>
    <td>${c.name ?? ''}${
      c.system_output || c.stack_trace
        ? html`<details class="test-output"><summary>Output</summary><pre class="log">${c.system_output ?? ''}${c.system_output && c.stack_trace ? '\n' : ''}${c.stack_trace ?? ''}</pre></details>`
        : ''
    }</td>
    <td class="mono">${c.classname ?? ''}</td>
    <td>${seconds(c.execution_time)}</td>
  </tr>`,
  )}</tbody>
</table>
</section>`;
}

/** Test times are short: hundredths of a second below a minute. */
const seconds = (n: number): string => (n < 60 ? `${n.toFixed(2)}s` : duration(n));

const caseRank = (status: string): number => ({ failed: 0, error: 1, skipped: 2, success: 3 })[status] ?? 4;

// ---- a job ----

function jobActions(ctx: ProjectPageContext, job: any, mayAct: boolean): Html {
  if (!mayAct) return html``;
  const at = `/projects/${ctx.project.id}/jobs/${job.id}`;
  const buttons: Html[] = [];
  if (isJobActive(job.status)) buttons.push(html`<button type="button" class="danger" data-api="${at}/cancel" data-method="POST" data-while-active data-saved="Job canceled.">Cancel</button>`);
  else if (job.status !== 'manual') buttons.push(html`<button type="button" data-api="${at}/retry" data-method="POST" data-then="redirect-field:web_url">Retry</button>`);
  if (!isJobActive(job.status) && job.status !== 'manual')
    buttons.push(html`<button type="button" class="danger" data-api="${at}/erase" data-method="POST" data-confirm="Erase this job's log and artifacts?">Erase</button>`);
  return html`<div class="toolbar" data-action-scope>${buttons}</div>`;
}

function artifactsPanel(ctx: ProjectPageContext, job: any): Html {
  if (!job.artifacts_file) return html``;
  return html`<section class="panel" aria-labelledby="artifacts-title">
  <h2 id="artifacts-title">Job artifacts</h2>
  <p>${job.artifacts_file.filename} &middot; ${job.artifacts_file.size} bytes${job.artifacts_expire_at ? html` &middot; expire ${when(job.artifacts_expire_at)}` : ''}</p>
  <p class="toolbar">
    <a class="button" href="${base(ctx)}/-/jobs/${job.id}/artifacts/download">Download</a>
    <a class="button" href="${base(ctx)}/-/jobs/${job.id}/artifacts/browse">Browse</a>
  </p>
</section>`;
}

// A project's jobs, a job and its log are read from the domain as the visitor, not through the API:
// the API asks for a sign-in there (as the reference's jobs API does), while the reference's pages
// show a public project's jobs to anyone.

/** The job in the API's shape, or null where the visitor may not see it. */
async function jobAsVisitor(ctx: ProjectPageContext, id: number): Promise<any | null> {
  const view = await unlessHidden(getJob(ctx.c, await ctx.actor(), ctx.project.id, id));
  return view ? presentJob(ctx.c, view) : null;
}

async function traceText(ctx: ProjectPageContext, jobId: number): Promise<string | null> {
  const t = await unlessHidden(jobTrace(ctx.c, await ctx.actor(), ctx.project.id, jobId));
  if (!t) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of t.stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** When the pieces of the job's log were stored from byte `from` on (none when it cannot be read). */
async function traceTimes(ctx: ProjectPageContext, jobId: number, from = 0): Promise<TraceTime[]> {
  return (await unlessHidden(jobTraceTimes(ctx.c, await ctx.actor(), ctx.project.id, jobId, from))) ?? [];
}

/**
 * `jobs/:id/trace.json?times_from=N` (the reference's page has one of this name): what the job
 * page's live tail reads every 2 s — the job, its log so far, then when its pieces from N on
 * were stored — as the visitor, so a public job's log is followed without signing in.
 */
async function liveJob(ctx: ProjectPageContext): Promise<PageOutcome> {
  const id = idParam(ctx);
  const job = await jobAsVisitor(ctx, id);
  if (!job) return sendJson(ctx.reply, 404, NOT_FOUND);
  const from = Number(ctx.query.get('times_from') ?? '0');
  const trace = await traceText(ctx, id);
  const times = trace === null ? [] : await traceTimes(ctx, id, Number.isSafeInteger(from) && from >= 0 ? from : 0);
  return sendJson(ctx.reply, 200, { job, trace, times });
}

/** A manual job's Run form: variables for this run (job_variables_attributes), then play. */
function playForm(ctx: ProjectPageContext, job: any, mayAct: boolean): Html {
  if (job.status !== 'manual' || !mayAct) return html``;
  return html`<section class="panel" aria-labelledby="play-title">
  <h2 id="play-title">Run this job</h2>
  <form class="stack" data-api="/projects/${ctx.project.id}/jobs/${job.id}/play" data-method="POST" data-then="redirect-field:web_url">
    ${variableRows('job_variables_attributes', false)}
    <button type="submit" class="primary">Run job</button>
  </form>
</section>`;
}

/** The pipeline's jobs by stage beside the log, this one marked. */
function pipelineJobs(job: any, jobs: any[] | null): Html {
  if (!jobs || jobs.length === 0) return html``;
  return html`<nav class="panel pipeline-jobs" aria-labelledby="pipeline-jobs-title">
  <h2 id="pipeline-jobs-title">Jobs of pipeline #${job.pipeline.id}</h2>
  ${stagesOf(jobs, []).map(
    (s) => html`<h3>${s.name}</h3><ul>${s.nodes.map(
      (n) => html`<li><a href="${sitePath(n.job.web_url)}"${n.job.id === job.id ? raw(' aria-current="page"') : ''}>${statusBadge(n.job.status, n.job.allow_failure)} ${n.job.name}</a></li>`,
    )}</ul>`,
  )}
</nav>`;
}

/** A bridge by id, in the API's shape, read as the visitor (the API finds bridges only by pipeline); null when not readable. */
async function findBridge(ctx: ProjectPageContext, id: number): Promise<any | null> {
  const view = await unlessHidden(getBridge(ctx.c, await ctx.actor(), ctx.project.id, id));
  return view ? presentBridges(ctx.c, [view])[0] : null;
}

/** A bridge (trigger job) at its web_url: where it is and the pipeline it started. */
async function bridgePage(ctx: ProjectPageContext, id: number) {
  const b = await findBridge(ctx, id);
  if (!b) throw new PageNotFound();
  const down = b.downstream_pipeline;
  return {
    title: `${b.name} (#${id}) · ${ctx.project.name_with_namespace}`,
    section: 'pipelines',
    body: html`<p class="breadcrumbs"><a href="${base(ctx)}/-/pipelines">Pipelines</a> / <a href="${sitePath(b.pipeline.web_url)}">#${b.pipeline.id}</a> / ${b.name}</p>
<h1>Trigger job ${b.name} <span class="muted">#${id}</span></h1>
<p>This job starts a downstream pipeline; it has no log of its own.</p>
<dl class="facts">
  <dt>Status</dt><dd>${statusBadge(b.status, b.allow_failure)}</dd>
  <dt>Stage</dt><dd>${b.stage}</dd>
  <dt>Pipeline</dt><dd><a href="${sitePath(b.pipeline.web_url)}">#${b.pipeline.id}</a></dd>
  <dt>Downstream pipeline</dt><dd>${down ? html`<a href="${sitePath(down.web_url)}">#${down.id}</a> ${statusBadge(down.status)}` : html`<span class="muted">not created yet</span>`}</dd>
  <dt>Created</dt><dd>${when(b.created_at)}</dd>
</dl>`,
  };
}

async function jobPage(ctx: ProjectPageContext) {
  const id = idParam(ctx);
  const job = await jobAsVisitor(ctx, id);
  // the jobs API knows builds only; a bridge's web_url leads here too
  if (!job) return bridgePage(ctx, id);
  const [log, times, others, acts] = await Promise.all([
    traceText(ctx, id),
    traceTimes(ctx, id),
    allPagesOrNull(ctx.api, `/projects/${ctx.project.id}/pipelines/${job.pipeline.id}/jobs`),
    mayAct(ctx, job.pipeline.id),
  ]);
  const finished = !isJobActive(job.status);
  const shown = log ? logHtml(log, finished, times) : '';
  const timed = shown.includes('<time ');
  return {
    title: `${job.name} (#${id}) · ${ctx.project.name_with_namespace}`,
    section: 'pipelines',
    body: html`<p class="breadcrumbs"><a href="${base(ctx)}/-/pipelines">Pipelines</a> / <a href="${sitePath(job.pipeline.web_url)}">#${job.pipeline.id}</a> / ${job.name}</p>
<div class="toolbar"><h1>Job ${job.name} <span class="muted">#${id}</span></h1>${jobActions(ctx, job, acts)}</div>
<div class="job-layout">
  <div class="job-main">
    <div class="toolbar log-tools">
      <h2 id="log-title">Log</h2>
      ${log ? html`<a href="${base(ctx)}/-/jobs/${id}/raw">View raw</a>
      <a href="#log-end">Scroll to bottom</a>` : ''}
      ${timed || !finished ? html`<label class="log-times-toggle" hidden data-log-times><input type="checkbox" checked> Times</label>` : ''}
      ${log || !finished ? html`<span class="log-search"><input type="search" data-log-search aria-label="Search the log" placeholder="Search the log"> <span class="muted" data-log-search-count aria-live="polite"></span></span>` : ''}
    </div>
    <div class="job-log${timed ? ' with-times' : ''}" role="log" aria-labelledby="log-title" tabindex="0" data-job-log data-project-id="${ctx.project.id}" data-job-id="${id}" data-status="${job.status}" data-length="${log?.length ?? 0}">${
      log === null || log === '' ? html`<p class="muted log-empty">${emptyLogWords(job.status)}</p>` : raw(shown)
    }</div>
    <span id="log-end"></span>
    ${playForm(ctx, job, acts)}
  </div>
  <aside class="job-side" aria-label="Job details"><div data-job-facts>${jobFacts(job)}</div>${artifactsPanel(ctx, job)}${pipelineJobs(job, others)}</aside>
</div>`,
  };
}

/** What a job without a log says instead. */
function emptyLogWords(status: string): string {
  if (status === 'manual') return 'This is a manual job: it runs when a developer runs it (Run job).';
  if (status === 'skipped' || status === 'created') return 'This job has not run.';
  return isJobActive(status) ? 'Waiting for the job to start…' : 'This job has no log.';
}

// ---- the project's jobs ----

const JOB_SCOPES = ['created', 'pending', 'running', 'failed', 'success', 'canceled', 'skipped', 'manual'];

async function jobsList(ctx: ProjectPageContext) {
  const p = ctx.project;
  const scope = JOB_SCOPES.includes(ctx.query.get('scope') ?? '') ? ctx.query.get('scope')! : '';
  const page = pageNumber(ctx.query);
  const at = (more: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries({ scope, ...more }).filter(([, v]) => v));
    return `${base(ctx)}/-/jobs${q.size ? `?${q}` : ''}`;
  };
  const PER_PAGE = 20;
  const listed = await unlessHidden(listProjectJobs(ctx.c, await ctx.actor(), p.id, scope ? [scope] : undefined, { kind: 'offset', page, perPage: PER_PAGE }));
  if (!listed) throw new PageNotFound();
  const jobs: any[] = presentJobs(ctx.c, listed.items);
  const pager = {
    page,
    nextPage: listed.hasNext ? page + 1 : null,
    prevPage: page > 1 ? page - 1 : null,
    totalPages: listed.total === null ? null : Math.max(1, Math.ceil(listed.total / PER_PAGE)),
  };
  return {
    title: `Jobs · ${p.name_with_namespace}`,
    section: 'pipelines',
    body: html`<div class="toolbar"><h1>Jobs</h1><a class="button" href="${base(ctx)}/-/pipelines">Pipelines</a></div>
<nav class="tabs" aria-label="Job status"><ul>${['', ...JOB_SCOPES].map(
      (s) => html`<li><a href="${at({ scope: s, page: '' })}"${s === scope ? raw(' aria-current="page"') : ''}>${s ? s : 'All'}</a></li>`,
    )}</ul></nav>
${
  jobs.length === 0
    ? html`<p class="muted">No jobs to show.</p>`
    : html`<table class="jobs">
  <caption class="visually-hidden">Jobs</caption>
  <thead><tr><th scope="col">Status</th><th scope="col">Job</th><th scope="col">Pipeline</th><th scope="col">Stage</th><th scope="col">Ref</th><th scope="col">Duration</th><th scope="col">Created</th></tr></thead>
  <tbody>${jobs.map(
    (j) => html`<tr data-job-id="${j.id}">
    <td>${statusBadge(j.status, j.allow_failure)}</td>
    <td><a href="${sitePath(j.web_url)}">${j.name}</a> <span class="muted">#${j.id}</span></td>
    <td><a href="${sitePath(j.pipeline.web_url)}">#${j.pipeline.id}</a></td>
    <td>${j.stage}</td>
    <td class="mono">${j.ref}</td>
    <td>${liveDuration(j.duration, j.status === 'running' ? j.started_at : null)}</td>
    <td>${when(j.created_at)}</td>
  </tr>`,
  )}</tbody>
</table>`
}
${pagerLinks(pager, (n) => at({ page: String(n) }))}`,
  };
}

async function rawLog(ctx: ProjectPageContext): Promise<PageOutcome> {
  const id = idParam(ctx);
  if (!(await jobAsVisitor(ctx, id))) throw new PageNotFound();
  const log = await traceText(ctx, id);
  if (log === null) throw new PageNotFound();
  await ctx.reply.code(200).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').send(log);
  return SENT;
}

export const ciPages: ProjectPage[] = [
  { path: 'pipelines', handler: pipelinesList },
  { path: 'pipelines/:id', handler: pipelinePage },
  { path: 'pipelines/:id/test_report', handler: testReportPage },
  { path: 'jobs', handler: jobsList },
  { path: 'jobs/:id', handler: jobPage },
  { path: 'jobs/:id/raw', handler: rawLog },
  { path: 'jobs/:id/trace.json', handler: liveJob },
];
