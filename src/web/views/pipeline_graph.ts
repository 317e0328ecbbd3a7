// A pipeline's live part: its header facts and the stage graph. Pure (no Node APIs): the server
// renders the page with it, and the browser re-renders the same markup from the same REST answers
// (GET /pipelines/:id, its /jobs and /bridges, and once its /needs) while the pipeline runs.
//
// Layout is computed here, not measured in the browser, so the edges are plain SVG lines in the
// same coordinates as the nodes. Stages come in the order of their first job (the planner creates
// jobs stage by stage as the file lists them; `.pre` first, `.post` last). A job's edges go to
// the jobs it needs when the job says so (`needs`: names, see withNeeds); otherwise to the stage
// before it, as the reference's stage view draws it (a job without needs waits for the whole
// previous stage). Each needs edge is a path of its own naming both ends (data-from, data-to);
// the stage-order edges are one path.
import { encodePath, html, type Html } from '../html.js';
import { liveDuration, shortSha, statusBadge, statusWords, when } from './common.js';
import { sitePath } from './lists.js';

export interface PipelineLive {
  pipeline: any;
  /** Jobs and bridges of the pipeline (any order). */
  jobs: any[];
  bridges: any[];
  /** GET …/pipelines/:id/needs (any order), or null when it could not be read (stage order). */
  needs: any[] | null;
  /** The visitor may play, retry and cancel jobs (a developer): each job gets its button. */
  actions?: boolean;
}

/** Statuses after which nothing changes by itself (polling stops). */
const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped', 'manual']);
export const isFinished = (status: string | null | undefined): boolean => FINISHED.has(status ?? '');

export const NODE_W = 200;
export const NODE_H = 40;
const COL_GAP = 64;
const ROW_GAP = 12;
const HEAD_H = 32;

interface Node {
  job: any;
  bridge: boolean;
  col: number;
  row: number;
}

interface Stage {
  name: string;
  nodes: Node[];
}

export function stagesOf(jobs: any[], bridges: any[]): Stage[] {
  const all = [...jobs.map((job) => ({ job, bridge: false })), ...bridges.map((job) => ({ job, bridge: true }))].sort((a, b) => a.job.id - b.job.id);
  const byName = new Map<string, { first: number; items: { job: any; bridge: boolean }[] }>();
  for (const it of all) {
    const s = byName.get(it.job.stage);
    if (s) s.items.push(it);
    else byName.set(it.job.stage, { first: it.job.id, items: [it] });
  }
  const rank = (name: string): number => (name === '.pre' ? -1 : name === '.post' ? 1 : 0);
  return [...byName.entries()]
    .sort(([a, x], [b, y]) => rank(a) - rank(b) || x.first - y.first)
    .map(([name, s], col) => ({ name, nodes: s.items.map((it, row) => ({ ...it, col, row })) }));
}

const nodeX = (col: number): number => col * (NODE_W + COL_GAP);
const nodeY = (row: number): number => HEAD_H + row * (NODE_H + ROW_GAP);

/**
 * The jobs (or bridges) with the `needs` that GET …/pipelines/:id/needs gave their names
 * (`[{id, name, needs}]`, needs null for stage order). Matched by name, not id: a job's needs are
 * its plan's, the same for every try, so a retry between the two reads changes nothing. Without
 * that answer (null) the jobs stay as they are and the graph keeps stage order.
 */
export function withNeeds(jobs: any[], needs: any[] | null): any[] {
  if (!needs) return jobs;
  const byName = new Map<string, unknown>(needs.filter((n) => typeof n?.name === 'string').map((n) => [n.name, n.needs ?? null]));
  return jobs.map((j) => (byName.has(j.name) ? { ...j, needs: byName.get(j.name) } : j));
}

/** The names a job needs, if the API's job says (strings or `{name}` objects); null = stage order. */
function needsOf(job: any): string[] | null {
  if (!Array.isArray(job.needs)) return null;
  return job.needs.map((n: any) => (typeof n === 'string' ? n : n?.name)).filter((n: unknown): n is string => typeof n === 'string');
}

function edgesSvg(stages: Stage[], width: number, height: number): Html {
  const byName = new Map<string, Node>();
  for (const s of stages) for (const n of s.nodes) byName.set(n.job.name, n);
  const paths: string[] = [];
  const needEdges: Html[] = [];
  const line = (from: Node, to: Node) => {
    const x1 = nodeX(from.col) + NODE_W;
    const y1 = nodeY(from.row) + NODE_H / 2;
    const x2 = nodeX(to.col);
    const y2 = nodeY(to.row) + NODE_H / 2;
    let d: string;
    if (to.col - from.col > 1) {
      // Over the stages in between: along the gap between two rows (rows line up in every column,
      // so no job is there), above the needed job's row or below it towards the needing job's, so
      // the line never runs behind a job it does not join. Its turns sit off the column gaps'
      // middles, where the stage-order buses and the next stage's edges turn.
      const lane = to.row > from.row ? nodeY(from.row) + NODE_H + ROW_GAP / 2 : nodeY(from.row) - ROW_GAP / 2;
      d = `M${x1} ${y1}H${x1 + COL_GAP / 4}V${lane}H${x2 - COL_GAP / 4}V${y2}H${x2}`;
    } else {
      const mid = x2 - COL_GAP / 2;
      d = `M${x1} ${y1}H${mid}V${y2}H${x2}`;
    }
    needEdges.push(html`<path class="need-edge" data-from="${from.job.name}" data-to="${to.job.name}" d="${d}"/>`);
  };
  for (const s of stages) {
    for (const n of s.nodes) {
      const needs = needsOf(n.job);
      if (needs) {
        for (const name of needs) {
          const from = byName.get(name);
          if (from) line(from, n);
        }
      } else if (n.col > 0) {
        // the stage before: one stub per job into a shared bus, drawn once per stage pair below
        const x2 = nodeX(n.col);
        const y2 = nodeY(n.row) + NODE_H / 2;
        paths.push(`M${x2 - COL_GAP / 2} ${y2}H${x2}`);
      }
    }
  }
  // Buses between consecutive stages whose jobs wait for the stage before.
  for (let i = 1; i < stages.length; i++) {
    const waiting = stages[i].nodes.filter((n) => !needsOf(n.job));
    if (waiting.length === 0) continue;
    const prev = stages[i - 1].nodes;
    const mid = nodeX(i) - COL_GAP / 2;
    for (const p of prev) paths.push(`M${nodeX(p.col) + NODE_W} ${nodeY(p.row) + NODE_H / 2}H${mid}`);
    const rows = [...prev.map((n) => n.row), ...waiting.map((n) => n.row)];
    paths.push(`M${mid} ${nodeY(Math.min(...rows)) + NODE_H / 2}V${nodeY(Math.max(...rows)) + NODE_H / 2}`);
  }
  const stageEdges = paths.length ? html`<path class="stage-edges" d="${paths.join('')}"/>` : '';
  return html`<svg class="graph-edges" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-hidden="true" focusable="false">${stageEdges}${needEdges}</svg>`;
}

/** The one action a job's node offers, as the reference's graph: run a manual job, cancel an active one, retry a finished one. */
function nodeAction(n: Node, projectId: number): Html {
  const j = n.job;
  if (n.bridge) return html``;
  const act =
    j.status === 'manual' ? { path: 'play', label: 'Run', icon: '\u25B6' }
    : ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'].includes(j.status) ? { path: 'cancel', label: 'Cancel', icon: '\u2715' }
    : ['success', 'failed', 'canceled'].includes(j.status) ? { path: 'retry', label: 'Retry', icon: '\u21BB' }
    : null;
  if (!act) return html``;
  const style = `left:${nodeX(n.col) + NODE_W - 34}px;top:${nodeY(n.row) + 6}px`;
  return html`<button type="button" class="node-action" style="${style}" data-job-action="/projects/${projectId}/jobs/${j.id}/${act.path}" aria-label="${act.label} ${j.name}" title="${act.label}">${act.icon}</button>`;
}

function nodeHtml(n: Node, projectId: number | null): Html {
  const j = n.job;
  const action = projectId === null ? html`` : nodeAction(n, projectId);
  const needs = needsOf(j);
  const style = `left:${nodeX(n.col)}px;top:${nodeY(n.row)}px;width:${NODE_W}px;height:${NODE_H}px`;
  const target = n.bridge ? j.downstream_pipeline?.web_url : j.web_url;
  const label = html`${statusBadge(j.status, j.allow_failure)}<span class="job-name">${j.name}</span>${
    n.bridge ? html`<span class="visually-hidden"> (downstream pipeline)</span>` : ''
  }${needs && needs.length > 0 ? html`<span class="visually-hidden">, needs ${needs.join(', ')}</span>` : ''}`;
  const attrs = html`class="job-node${n.bridge ? ' bridge' : ''}${action.text ? ' has-action' : ''}" style="${style}" data-job-id="${j.id}" data-job-name="${j.name}" data-status="${j.status}"`;
  return target
    ? html`<li><a ${attrs} href="${sitePath(target)}" title="${j.name}: ${statusWords(j.status, j.allow_failure)}">${label}</a>${action}</li>`
    : html`<li><span ${attrs} title="${j.name}: ${statusWords(j.status, j.allow_failure)}">${label}</span>${action}</li>`;
}

/** The stage graph: a labelled list per stage, positioned in columns, edges drawn behind; with a project id, each job's action button. */
export function pipelineGraph(jobs: any[], bridges: any[], actionsIn: number | null = null): Html {
  const stages = stagesOf(jobs, bridges);
  if (stages.length === 0) return html`<p class="muted">This pipeline has no jobs.</p>`;
  const rows = Math.max(...stages.map((s) => s.nodes.length));
  const width = nodeX(stages.length - 1) + NODE_W;
  const height = nodeY(rows - 1) + NODE_H;
  return html`<div class="pipeline-graph" style="width:${width}px;height:${height}px">
${edgesSvg(stages, width, height)}
${stages.map(
  (s, col) => html`<section class="graph-stage" aria-labelledby="stage-${col}">
  <h3 id="stage-${col}" class="stage-name" style="left:${nodeX(col)}px;width:${NODE_W}px">${s.name}</h3>
  <ul>${s.nodes.map((n) => nodeHtml(n, actionsIn))}</ul>
</section>`,
)}
</div>`;
}

/** The header facts that change while the pipeline runs. */
export function pipelineFacts(p: any): Html {
  const project = sitePath(p.web_url).replace(/\/-\/pipelines\/\d+$/, '');
  return html`<p class="pipeline-facts">${statusBadge(p.status)}
  <span>for <a href="${project}/-/tree/${encodePath(p.ref)}" class="mono">${p.ref}</a></span>
  <span>at <a href="${project}/-/commit/${p.sha}" class="mono">${shortSha(p.sha)}</a></span>
  <span>&middot; duration <span data-field="duration">${liveDuration(p.duration, p.status === 'running' ? p.started_at : null)}</span></span>
  ${p.user ? html`<span>&middot; triggered by <a href="${sitePath(p.user.web_url)}">${p.user.name}</a></span>` : ''}
  <span>&middot; created ${when(p.created_at)}</span>
  ${p.finished_at ? html`<span>&middot; finished ${when(p.finished_at)}</span>` : ''}
</p>
${p.yaml_errors ? html`<p class="flash" role="alert">${p.yaml_errors}</p>` : ''}`;
}

/** Everything the browser re-renders on each poll. */
export function pipelineLive(d: PipelineLive): Html {
  return html`${pipelineFacts(d.pipeline)}
<h2 id="graph-title">Jobs</h2>
<div class="graph-scroll" role="region" aria-labelledby="graph-title" tabindex="0">${pipelineGraph(withNeeds(d.jobs, d.needs), withNeeds(d.bridges, d.needs), d.actions ? d.pipeline.project_id : null)}</div>`;
}
