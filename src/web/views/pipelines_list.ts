// A row of the pipelines list: status, id, ref and commit, source, each stage's status icon,
// duration (ticking while it runs) and creation time. Pure: the server renders the list, the
// browser re-renders an unfinished row from GET /pipelines/:id and its /jobs and /bridges.
import { encodePath, html, type Html } from '../html.js';
import { liveDuration, shortSha, statusBadge, when } from './common.js';
import { sitePath } from './lists.js';
import { stagesOf } from './pipeline_graph.js';

const ACTIVE = ['running', 'pending', 'preparing', 'waiting_for_resource'];

/** A stage's status from its jobs' (the reference's composite status, in short). */
export function stageStatus(jobs: { status: string; allow_failure?: boolean }[]): string {
  const has = (s: string) => jobs.some((j) => j.status === s);
  if (jobs.length === 0) return 'created';
  if (jobs.every((j) => j.status === 'skipped')) return 'skipped';
  if (jobs.every((j) => j.status === 'success' || j.status === 'skipped' || (j.status === 'failed' && j.allow_failure))) return 'success';
  if (has('running')) return 'running';
  if (ACTIVE.some(has)) return 'pending';
  if (jobs.some((j) => j.status === 'failed' && !j.allow_failure)) return 'failed';
  if (has('canceled')) return 'canceled';
  if (has('manual')) return 'manual';
  if (has('scheduled')) return 'scheduled';
  return 'created';
}

/** One status icon per stage, in the graph's order, each saying its stage and status. */
export function stageIcons(jobs: any[], bridges: any[], pipelineUrl: string): Html {
  const stages = stagesOf(jobs, bridges);
  if (stages.length === 0) return html`<span class="muted">&mdash;</span>`;
  return html`<ul class="stage-icons">${stages.map((s) => {
    const st = stageStatus(s.nodes.map((n) => n.job));
    const words = `${s.name}: ${st.replace(/_/g, ' ')}`;
    return html`<li><a class="status status-${st}" data-stage="${s.name}" data-status="${st}" href="${pipelineUrl}" title="${words}"><span class="status-dot" aria-hidden="true"></span><span class="visually-hidden">${words}</span></a></li>`;
  })}</ul>`;
}

/** A pipeline still moving: the list polls its row. */
export const isPipelineActive = (status: string): boolean => ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'].includes(status);

/** The row; `jobs`/`bridges` null when they could not be read (no stage icons). */
export function pipelineRow(r: any, jobs: any[] | null, bridges: any[] | null): Html {
  const url = sitePath(r.web_url);
  const project = url.replace(/\/-\/pipelines\/\d+$/, '');
  return html`<tr data-pipeline-id="${r.id}" data-status="${r.status}">
    <td>${statusBadge(r.status)}</td>
    <td><a href="${url}">#${r.id}</a>${r.user ? html`<br><span class="muted">by ${r.user.name}</span>` : ''}</td>
    <td><a class="mono" href="${project}/-/tree/${encodePath(r.ref)}">${r.ref}</a><br><a class="mono" href="${project}/-/commit/${r.sha}">${shortSha(r.sha)}</a></td>
    <td>${r.source}</td>
    <td>${jobs && bridges ? stageIcons(jobs, bridges, url) : ''}</td>
    <td>${liveDuration(r.duration, r.status === 'running' ? r.started_at : null)}</td>
    <td>${when(r.created_at)}</td>
  </tr>`;
}
