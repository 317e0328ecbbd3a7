// Auto-cancel of redundant pipelines, what `interruptible` is for (the reference's 15.x
// CancelPendingPipelines step of pipeline creation): when a pipeline is created for a ref, the
// older unfinished pipelines of that ref are canceled, each only when none of its builds that
// started (running, success, failed) is non-interruptible. Jobs that have not started count as
// interruptible, and manual jobs stay manual.
//
// Which older pipelines: same project, same ref (and the same kind, branch or tag), created
// before the new one and within the last week, status created / waiting_for_resource /
// preparing / pending / running / scheduled, any source but the dangling ones (webide, the
// on-demand DAST scans); child pipelines too, each weighed on its own (a canceled bridge does not
// cancel its child), and never one at the ref's current head commit. A child pipeline being
// created cancels nothing. The reference's project setting auto_cancel_pending_pipelines is not
// kept by Anvil: it is always 'enabled', the reference's default.
import type { Container } from '../context.js';
import { startedBuildsOfPipelines } from '../../db/repos/ci_jobs.js';
import { olderPipelinesOfRef } from '../../db/repos/ci_pipeline_lists.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import { resolveRevision } from '../../git/repository.js';
import { repositoryDir } from '../repository/service.js';
import { addSeconds, nowIso } from '../../shared/time.js';
import { cancelPipeline, jobPlan } from './state.js';

/** The pipeline statuses auto-cancel looks at (the reference's alive_or_scheduled; not manual). */
const ALIVE_OR_SCHEDULED: readonly string[] = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'];
/** Sources whose pipelines do not stand for their ref (the reference's dangling sources but parent_pipeline). */
const DANGLING_SOURCES: readonly string[] = ['webide', 'ondemand_dast_scan', 'ondemand_dast_validation'];
/** Older pipelines than this are left alone. */
const WINDOW_SECONDS = 7 * 24 * 3600;
const PAGE = 100;

/**
 * Cancels the pipelines that `pipeline` (just created) makes redundant; returns their ids, oldest
 * first. Never throws: the new pipeline exists either way, so a failure is logged.
 */
export async function cancelRedundantPipelines(c: Container, pipeline: PipelineRow): Promise<number[]> {
  if (pipeline.source === 'parent_pipeline') return [];
  const canceled: number[] = [];
  try {
    const full = (pipeline.tag ? 'refs/tags/' : 'refs/heads/') + pipeline.ref;
    const head = await resolveRevision(repositoryDir(c, pipeline.project_id), full);
    const createdAfter = addSeconds(nowIso(), -WINDOW_SECONDS);
    let afterId = 0;
    for (;;) {
      const page = await olderPipelinesOfRef(c.db, {
        projectId: pipeline.project_id,
        ref: pipeline.ref,
        tag: pipeline.tag,
        beforeId: pipeline.id,
        afterId,
        createdAfter,
        statuses: ALIVE_OR_SCHEDULED,
        excludedSources: DANGLING_SOURCES,
        limit: PAGE,
      });
      if (page.length === 0) break;
      afterId = page[page.length - 1]!.id;
      const candidates = page.filter((p) => p.sha !== head);
      const started = await startedBuildsOfPipelines(c.db, candidates.map((p) => p.id));
      const protectedIds = new Set(started.filter((j) => jobPlan(j).interruptible !== true).map((j) => j.pipeline_id));
      for (const p of candidates) {
        if (protectedIds.has(p.id)) continue;
        c.log.info({ pipelineId: p.id, canceledBy: pipeline.id, source: pipeline.source }, 'auto-canceling a redundant pipeline');
        const after = await cancelPipeline(c, p.id, { cascade: false });
        if (after?.status === 'canceled') canceled.push(p.id);
      }
      if (page.length < PAGE) break;
    }
  } catch (err) {
    c.log.error({ err, pipelineId: pipeline.id }, 'redundant pipelines could not be auto-canceled');
  }
  return canceled;
}
