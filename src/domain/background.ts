// Every kind of background work and its handler, in one place. The container registers them all
// on every node's queue (any node runs any job); a test may register only the kinds it drives.
import type { JobHandler } from '../queue/queue.js';
import { DELETE_MERGED_BRANCHES_JOB, runDeleteMergedBranches } from './branches/service.js';
import { ARTIFACTS_EXPIRE_JOB, ARTIFACTS_EXPIRE_EVERY_MS, expireArtifacts } from './ci/artifacts.js';
import { PIPELINE_SCHEDULE_RUN_JOB, runSchedule } from './ci/pipeline_schedules.js';
import { PUSH_PIPELINE_JOB, runPushPipelines } from './ci/push_pipelines.js';
import type { Container } from './context.js';
import { EVENTS_PRUNE_EVERY_MS, EVENTS_PRUNE_JOB, pruneOldEvents } from './events/service.js';
import {
  EXPORTS_EXPIRE_EVERY_MS, EXPORTS_EXPIRE_JOB, expireExports, PROJECT_EXPORT_JOB, PROJECT_EXPORT_UPLOAD_JOB, runExport, runExportUpload,
} from './import_export/export.js';
import { PROJECT_IMPORT_JOB, runImport } from './import_export/import.js';
import { MERGE_REQUEST_AUTO_MERGE_JOB } from './merge_requests/auto_merge.js';
import { runAutoMerge } from './merge_requests/merge.js';
import { runMergeRequestRefresh } from './merge_requests/after_push.js';
import { MERGE_REQUEST_REFRESH_JOB } from './merge_requests/refresh.js';
import { FORK_REPOSITORY_JOB, runForkRepository } from './projects/forks.js';
import { PROJECT_DESTROY_JOB, runProjectDestroy } from './projects/lifecycle.js';
import { HOOK_DELIVERY_JOB, HOOK_LOG_PRUNE_EVERY_MS, HOOK_LOG_PRUNE_JOB, pruneHookRecords, runDelivery } from './hooks/delivery.js';
import { deliverRefChanges } from './hooks/events.js';
import {
  checkRepositoryPushPayload, pruneRefChangeIntentsNow, recoverRefChanges, REF_CHANGE_INTENTS_PRUNE_EVERY_MS, REF_CHANGE_INTENTS_PRUNE_JOB, REF_CHANGE_RECOVERY_JOB,
  REPOSITORY_PUSH_JOB,
} from './repository/ref_changes.js';
import { repositoryDir } from './repository/service.js';
import { INGEST_SECURITY_REPORTS_JOB, ingestPipeline } from './vulnerabilities/findings.js';
import { REPOSITORY_REFRESH_JOB, runRepositoryRefresh } from './repository/statistics.js';
import { failStuckRunnerJobs, RUNNER_STUCK_SWEEP_JOB, stuckSweepEveryMs } from './runners/jobs.js';
import { pendingJobExists } from '../db/repos/background_jobs.js';
import { now as clockNow } from '../shared/clock.js';

/** Work that runs again and again: each run queues the next (one waiting run at a time, whatever the nodes). */
const RECURRING: { kind: string; everyMs: (c: Container) => number; run: (c: Container) => Promise<unknown> }[] = [
  { kind: EVENTS_PRUNE_JOB, everyMs: () => EVENTS_PRUNE_EVERY_MS, run: pruneOldEvents },
  { kind: ARTIFACTS_EXPIRE_JOB, everyMs: () => ARTIFACTS_EXPIRE_EVERY_MS, run: expireArtifacts },
  { kind: EXPORTS_EXPIRE_JOB, everyMs: () => EXPORTS_EXPIRE_EVERY_MS, run: expireExports },
  { kind: HOOK_LOG_PRUNE_JOB, everyMs: () => HOOK_LOG_PRUNE_EVERY_MS, run: pruneHookRecords },
  { kind: REF_CHANGE_INTENTS_PRUNE_JOB, everyMs: () => REF_CHANGE_INTENTS_PRUNE_EVERY_MS, run: pruneRefChangeIntentsNow },
  // registered runners' jobs whose runner went away, also when no other runner polls
  { kind: RUNNER_STUCK_SWEEP_JOB, everyMs: stuckSweepEveryMs, run: failStuckRunnerJobs },
];

/** Queues a run of recurring work at `runAt` unless one is already waiting (several nodes start at once). */
export async function scheduleRecurring(c: Container, kind: string, runAt: Date, exceptJobId: number | null = null): Promise<void> {
  if (await pendingJobExists(c.db, kind, exceptJobId)) return;
  await c.queue.enqueue(kind, {}, { runAt });
}

const HANDLERS: Record<string, (c: Container) => JobHandler> = {
  [PROJECT_DESTROY_JOB]: (c) => (payload: { projectId: number }) => runProjectDestroy(c, payload),
  [FORK_REPOSITORY_JOB]: (c) => (payload: { projectId: number }) => runForkRepository(c, payload),
  [DELETE_MERGED_BRANCHES_JOB]: (c) => (payload: { projectId: number; userId: number }) => runDeleteMergedBranches(c, payload),
  [REPOSITORY_REFRESH_JOB]: (c) => (payload: { projectId: number }) => runRepositoryRefresh(c, Number(payload.projectId)),
  // Announcements of ref changes become push, tag push and repository update hook deliveries.
  [REPOSITORY_PUSH_JOB]: (c) => async (payload: unknown, job) => {
    const p = checkRepositoryPushPayload(payload);
    await deliverRefChanges(c, job.id, p, repositoryDir(c, p.projectId));
  },
  // Ref changes whose process died before publishing them (src/domain/repository/ref_changes.ts).
  [REF_CHANGE_RECOVERY_JOB]: (c) => (payload: { intentId: number }) => recoverRefChanges(c, payload),
  [HOOK_DELIVERY_JOB]: (c) => (payload: { deliveryId: number; attempt: number }) => runDelivery(c, payload),
  [MERGE_REQUEST_REFRESH_JOB]: (c) => (payload: { projectId: number; userId: number; branches: string[] }) => runMergeRequestRefresh(c, payload),
  [MERGE_REQUEST_AUTO_MERGE_JOB]: (c) => (payload: { pipelineId: number }) => runAutoMerge(c, payload),
  [PUSH_PIPELINE_JOB]: (c) => (payload, job) => runPushPipelines(c, payload, job),
  [PIPELINE_SCHEDULE_RUN_JOB]: (c) => (payload, job) => runSchedule(c, payload, job),
  [PROJECT_EXPORT_JOB]: (c) => (payload: { projectId: number; run: number }) => runExport(c, payload),
  [PROJECT_EXPORT_UPLOAD_JOB]: (c) => (payload: { projectId: number; run: number }, job) => runExportUpload(c, payload, job),
  [PROJECT_IMPORT_JOB]: (c) => (payload: { projectId: number }, job) => runImport(c, payload, job),
  [INGEST_SECURITY_REPORTS_JOB]: (c) => async (payload: { pipelineId: number }) => {
    await ingestPipeline(c, Number(payload.pipelineId));
  },
  ...Object.fromEntries(
    RECURRING.map((r) => [
      r.kind,
      (c: Container): JobHandler => async (_payload, job) => {
        await r.run(c);
        await scheduleRecurring(c, r.kind, new Date(clockNow() + r.everyMs(c)), job.id);
      },
    ]),
  ),
};

/** Registers the handlers of `kinds` (default: all) on `c.queue`. */
export function registerBackgroundJobs(c: Container, kinds: readonly string[] = Object.keys(HANDLERS)): void {
  for (const kind of kinds) {
    const handler = HANDLERS[kind];
    if (!handler) throw new Error(`no background job of kind "${kind}"`);
    c.queue.register(kind, handler(c));
  }
}

/** The first run of the recurring work, a minute after start, on nodes that run workers. */
export async function scheduleRecurringJobs(c: Container): Promise<void> {
  if (c.config.queueWorkers <= 0) return;
  const soon = new Date(clockNow() + 60_000);
  for (const r of RECURRING) await scheduleRecurring(c, r.kind, soon);
}
