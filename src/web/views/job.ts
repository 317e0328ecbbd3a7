// A job's facts beside its log. Pure: the server renders them, the browser re-renders them from
// GET /projects/:id/jobs/:job_id while the job runs.
import { html, type Html } from '../html.js';
import { liveDuration, shortSha, statusBadge, when } from './common.js';
import { sitePath } from './lists.js';

const ACTIVE = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled']);
/** The job may still change by itself (its log grows, its status moves). */
export const isJobActive = (status: string): boolean => ACTIVE.has(status);

/** The facts beside the log; the browser re-renders them as the job runs. */
export function jobFacts(job: any): Html {
  return html`<dl class="facts">
  <dt>Status</dt><dd>${statusBadge(job.status, job.allow_failure)}${job.failure_reason ? html` <span class="muted">(${job.failure_reason.replace(/_/g, ' ')})</span>` : ''}</dd>
  <dt>Stage</dt><dd>${job.stage}</dd>
  <dt>Duration</dt><dd>${liveDuration(job.duration, job.status === 'running' ? job.started_at : null)}</dd>
  <dt>Runner</dt><dd>${job.runner ? html`${job.runner.description} <span class="muted">#${job.runner.id}</span>` : '—'}</dd>
  <dt>Pipeline</dt><dd><a href="${sitePath(job.pipeline.web_url)}">#${job.pipeline.id}</a> for <span class="mono">${job.ref}</span> at <span class="mono">${shortSha(job.pipeline.sha)}</span></dd>
  <dt>Created</dt><dd>${when(job.created_at)}</dd>
  ${job.started_at ? html`<dt>Started</dt><dd>${when(job.started_at)}</dd>` : ''}
  ${job.finished_at ? html`<dt>Finished</dt><dd>${when(job.finished_at)}</dd>` : ''}
</dl>`;
}

