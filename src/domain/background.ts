// Every kind of background work and its handler, in one place. The container registers them all
// on every node's queue (any node runs any job); a test may register only the kinds it drives.
import type { JobHandler } from '../queue/queue.js';
import { DELETE_MERGED_BRANCHES_JOB, runDeleteMergedBranches } from './branches/service.js';
import { ARTIFACTS_EXPIRE_JOB, ARTIFACTS_EXPIRE_EVERY_MS, expireArtifacts, scheduleArtifactsExpiry } from './ci/artifacts.js';
import { PIPELINE_SCHEDULE_RUN_JOB, runSchedule } from './ci/pipeline_schedules.js';
import { PUSH_PIPELINE_JOB, runPushPipelines } from './ci/push_pipelines.js';
import type { Container } from './context.js';
import { EVENTS_PRUNE_EVERY_MS, EVENTS_PRUNE_JOB, pruneOldEvents, scheduleEventsPrune } from './events/service.js';
import {
  EXPORTS_EXPIRE_EVERY_MS, EXPORTS_EXPIRE_JOB, expireExports, PROJECT_EXPORT_JOB, PROJECT_EXPORT_UPLOAD_JOB, runExport, runExportUpload, scheduleExportsExpiry,
} from './import_export/export.js';
import { PROJECT_IMPORT_JOB, runImport } from './import_export/import.js';
import { FORK_REPOSITORY_JOB, runForkRepository } from './projects/forks.js';
import { PROJECT_DESTROY_JOB, runProjectDestroy } from './projects/lifecycle.js';
import { HOOK_DELIVERY_JOB, HOOK_LOG_PRUNE_EVERY_MS, HOOK_LOG_PRUNE_JOB, pruneHookRecords, runDelivery, scheduleHookPrune } from './hooks/delivery.js';
import { deliverRefChanges } from './hooks/events.js';
import {
  checkRepositoryPushPayload, pruneRefChangeIntentsNow, recoverRefChanges, REF_CHANGE_INTENTS_PRUNE_EVERY_MS, REF_CHANGE_INTENTS_PRUNE_JOB, REF_CHANGE_RECOVERY_JOB,
  REPOSITORY_PUSH_JOB, scheduleRefChangeIntentsPrune,
} from './repository/ref_changes.js';
import { repositoryDir } from './repository/service.js';
import { INGEST_SECURITY_REPORTS_JOB, ingestPipeline } from './vulnerabilities/findings.js';
import { REPOSITORY_REFRESH_JOB, runRepositoryRefresh } from './repository/statistics.js';
import { now as clockNow } from '../shared/clock.js';

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
  [PUSH_PIPELINE_JOB]: (c) => (payload, job) => runPushPipelines(c, payload, job),
  [PIPELINE_SCHEDULE_RUN_JOB]: (c) => (payload, job) => runSchedule(c, payload, job),
  [PROJECT_EXPORT_JOB]: (c) => (payload: { projectId: number; run: number }) => runExport(c, payload),
  [PROJECT_EXPORT_UPLOAD_JOB]: (c) => (payload: { projectId: number; run: number }, job) => runExportUpload(c, payload, job),
  [PROJECT_IMPORT_JOB]: (c) => (payload: { projectId: number }, job) => runImport(c, payload, job),
  [INGEST_SECURITY_REPORTS_JOB]: (c) => async (payload: { pipelineId: number }) => {
    await ingestPipeline(c, Number(payload.pipelineId));
  },
  // Recurring work reschedules itself after each run (the next run is a new job).
  [EVENTS_PRUNE_JOB]: (c) => async (_payload, job) => {
    await pruneOldEvents(c);
    await scheduleEventsPrune(c, new Date(clockNow() + EVENTS_PRUNE_EVERY_MS), job.id);
  },
  [ARTIFACTS_EXPIRE_JOB]: (c) => async (_payload, job) => {
    await expireArtifacts(c);
    await scheduleArtifactsExpiry(c, new Date(clockNow() + ARTIFACTS_EXPIRE_EVERY_MS), job.id);
  },
  [EXPORTS_EXPIRE_JOB]: (c) => async (_payload, job) => {
    await expireExports(c);
    await scheduleExportsExpiry(c, new Date(clockNow() + EXPORTS_EXPIRE_EVERY_MS), job.id);
  },
  [HOOK_LOG_PRUNE_JOB]: (c) => async (_payload, job) => {
    await pruneHookRecords(c);
    await scheduleHookPrune(c, new Date(clockNow() + HOOK_LOG_PRUNE_EVERY_MS), job.id);
  },
  [REF_CHANGE_INTENTS_PRUNE_JOB]: (c) => async (_payload, job) => {
    await pruneRefChangeIntentsNow(c);
    await scheduleRefChangeIntentsPrune(c, new Date(clockNow() + REF_CHANGE_INTENTS_PRUNE_EVERY_MS), job.id);
  },
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
  await scheduleEventsPrune(c, soon);
  await scheduleArtifactsExpiry(c, soon);
  await scheduleExportsExpiry(c, soon);
  await scheduleHookPrune(c, soon);
  await scheduleRefChangeIntentsPrune(c, soon);
}
