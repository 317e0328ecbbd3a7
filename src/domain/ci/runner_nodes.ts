// Runner nodes: each node whose built-in runner runs holds a lease in ci_runner_nodes, renewed on
// a heartbeat (the runner's timer), under a boot id that is new with every process. A job the
// runner takes records that node and boot (state.ts startJob). A running job whose node's lease
// ran out, or whose node came back under another boot id (restarted after a crash), has no
// runner any more: any node's heartbeat fails it with `runner_system_failure` (its `retry:`
// applies, as for any failure), its log so far kept with a line saying why.
//
// Jobs taken before nodes had leases (no node recorded) keep the older rule: failed as
// `stuck_or_timeout_failure` once past their timeout plus a grace, as the reference's stuck-jobs
// worker does.
import { randomUUID } from 'node:crypto';
import type { Container } from '../context.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { joinRunnerNode, orphanedBuildsAfter, renewRunnerNode, type OrphanedBuild, type RunnerNodeId } from '../../db/repos/ci_runner.js';
import { finishJob, jobPlan, type JobOutcome } from './state.js';
import { foldTrace, TraceWriter } from './traces.js';
import { jobTimeoutSeconds } from './timeout.js';
import { now as clockNow } from '../../shared/clock.js';

export type { RunnerNodeId } from '../../db/repos/ci_runner.js';

/** A running job without a node this much past its timeout has no runner any more. */
export const STALE_GRACE_MS = 5 * 60_000;

const RED = '\x1b[31;1m';
const RESET = '\x1b[0;m';
const BATCH = 200;
const iso = (ms: number) => new Date(ms).toISOString();

/** This process as a runner node: the node id given, a boot id of its own. */
export const newRunnerNode = (nodeId: string): RunnerNodeId => ({ nodeId, bootId: randomUUID() });

/** The node (re)joins with a fresh lease; the jobs of its previous boot are orphaned from now on. */
export const joinNode = (c: Container, node: RunnerNodeId, leaseMs: number, now = Date.now()): Promise<void> =>
  joinRunnerNode(c.db, node, iso(now), iso(now + leaseMs));

/** Extends the lease; false when another process joined under this node id since. */
export const renewNode = (c: Container, node: RunnerNodeId, leaseMs: number, now = Date.now()): Promise<boolean> =>
  renewRunnerNode(c.db, node, iso(now + leaseMs));

/** Why the job has no runner, as its last log line and failure; null when it may still run. */
function verdict(j: OrphanedBuild, project: ProjectRow | null, now: number, staleGraceMs: number): { line: string; outcome: JobOutcome } | null {
  const failed = (failureReason: string, why: string) => ({
    line: `${RED}ERROR: Job failed${failureReason === 'runner_system_failure' ? ' (system failure)' : ''}: ${why}${RESET}`,
    outcome: { status: 'failed' as const, failureReason, exitCode: null, coverage: null },
  });
  if (j.runner_node_id !== null) {
    const why = j.node_boot_id !== null && j.node_boot_id !== j.runner_boot_id
      ? `the runner node "${j.runner_node_id}" restarted while running this job`
      : `the runner node "${j.runner_node_id}" stopped renewing its lease while running this job`;
    return failed('runner_system_failure', why);
  }
  if (!j.started_at) return null;
  if (Date.parse(j.started_at) + jobTimeoutSeconds(jobPlan(j), project) * 1000 + staleGraceMs > now) return null;
  return failed('stuck_or_timeout_failure', 'the runner of this job stopped without finishing it (stuck or timed out)');
}

/**
 * Fails the running builds that no live node holds (see the header). Any node may do it, several
 * at once: the status change decides which one writes the log line. Returns how many it failed.
 */
export async function failOrphanedJobs(c: Container, opts: { staleGraceMs?: number } = {}): Promise<number> {
  // Leases are between live processes (system time); how long a job has run is domain time (the clock).
  const leaseNow = Date.now();
  const now = clockNow();
  const staleGraceMs = opts.staleGraceMs ?? STALE_GRACE_MS;
  const projects = new Map<number, ProjectRow | null>();
  let failed = 0;
  for (let afterId = 0; ;) {
    const batch = await orphanedBuildsAfter(c.db, { now: iso(leaseNow), startedBefore: iso(now - staleGraceMs), afterId, limit: BATCH });
    for (const j of batch) {
      if (!projects.has(j.project_id)) projects.set(j.project_id, (await findProjectById(c.db, j.project_id)) ?? null);
      const v = verdict(j, projects.get(j.project_id)!, now, staleGraceMs);
      if (!v || !(await finishJob(c, j.id, v.outcome))) continue;
      failed += 1;
      // Only the node whose status change won writes the line; then the log becomes the job's trace.
      const trace = await TraceWriter.open(c, j.id, { flushMs: 60_000 });
      trace.note(v.line);
      await trace.close();
      await foldTrace(c, j);
    }
    if (batch.length < BATCH) return failed;
    afterId = batch[batch.length - 1]!.id;
  }
}
