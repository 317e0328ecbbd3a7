// Bridges (`trigger:` jobs): when its turn comes a bridge creates a child pipeline (trigger:include,
// local files at the same commit, source parent_pipeline) or a pipeline in another project
// (trigger:project, source pipeline) as the bridge's user. Without `strategy: depend` the bridge
// succeeds once the downstream pipeline exists; with it the bridge mirrors the downstream
// pipeline: running while it runs, success when it succeeds, failed when it fails, is canceled
// or skipped (the reference's inherit_status_from_downstream). Statuses change through state.ts.
import type { Container } from '../context.js';
import { findCiJob, type JobRow } from '../../db/repos/ci_jobs.js';
import { findPipeline, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findProjectByFullPath, findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById, type UserRow } from '../../db/repos/users.js';
import { actingAs } from '../auth/actor.js';
import { projectAccess } from '../projects/policy.js';
import { ciConfig, planAndCreate, resolveRef, type PlanOutcome } from './pipelines.js';
import { canUpdateRef, ciAccessFrom } from './policy.js';
import { jobPlan, setBridgeStatus, type PipelineVariableInput } from './state.js';

export const BRIDGE_FAILURES = {
  projectNotFound: 'downstream_bridge_project_not_found',
  insufficientPermissions: 'insufficient_bridge_permissions',
  creationFailed: 'downstream_pipeline_creation_failed',
  invalidTrigger: 'invalid_bridge_trigger',
  tooDeep: 'reached_max_descendant_pipelines_depth',
  loop: 'pipeline_loop_detected',
  /** A dependent bridge whose downstream pipeline did not succeed (the reference's bare drop!). */
  downstreamFailed: 'unknown_failure',
} as const;

const ACTIVE = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'manual', 'scheduled'];

/** The bridge status that mirrors a downstream pipeline's status (strategy: depend). */
function mirrored(status: string): { status: 'running' | 'success' | 'failed'; reason: string | null } {
  if (status === 'success') return { status: 'success', reason: null };
  if (ACTIVE.includes(status)) return { status: 'running', reason: null };
  return { status: 'failed', reason: BRIDGE_FAILURES.downstreamFailed };
}

const fail = (c: Container, bridge: JobRow, reason: string) => setBridgeStatus(c, bridge.id, 'failed', reason);

/** Child pipelines nest at most this deep (a parent, its child, the child's child), as in the reference. */
export const MAX_CHILD_DEPTH = 2;
/** How far up a chain of triggered pipelines is followed at most. */
const MAX_CHAIN = 1000;

/** The pipeline and the pipelines above it (through the bridges that triggered them), nearest first. */
async function upstreamChain(c: Container, pipeline: PipelineRow): Promise<PipelineRow[]> {
  const chain = [pipeline];
  for (let p = pipeline; p.parent_job_id !== null && chain.length < MAX_CHAIN; ) {
    const bridge = await findCiJob(c.db, p.parent_job_id);
    const up = bridge ? await findPipeline(c.db, bridge.pipeline_id) : undefined;
    if (!up || chain.some((x) => x.id === up.id)) break;
    chain.push(up);
    p = up;
  }
  return chain;
}

/** How many child levels sit above this pipeline (0 for a pipeline that is no child). */
function childDepth(chain: PipelineRow[]): number {
  let depth = 0;
  for (const p of chain) {
    if (p.source !== 'parent_pipeline') break;
    depth++;
  }
  return depth;
}

/** The bridge's YAML variables (its own and the global ones) become the downstream pipeline's variables. */
function downstreamVariables(bridge: JobRow): PipelineVariableInput[] {
  const vars = jobPlan(bridge).variables ?? {};
  return Object.entries(vars).map(([key, value]) => ({ key, value: String(value), variable_type: 'env_var' as const }));
}

/** May `user` create a pipeline on `ref` of `project`? (create_pipeline and the protected-ref rule) */
async function mayCreateOn(c: Container, user: UserRow, project: ProjectRow, ref: string, tag: boolean): Promise<'ok' | 'invisible' | 'denied'> {
  const actor = actingAs(user);
  const access = ciAccessFrom(project, await projectAccess(c, actor, project));
  if (!access.visible) return 'invisible';
  if (!access.update || !(await canUpdateRef(c, actor, project, access, ref, tag))) return 'denied';
  return 'ok';
}

/**
 * Runs a bridge whose turn came (it is pending): creates its downstream pipeline and sets the
 * bridge's status and downstream_pipeline_id. Called by state.ts processPipeline.
 */
export async function triggerDownstream(c: Container, bridge: JobRow): Promise<void> {
  const current = await findCiJob(c.db, bridge.id);
  if (!current || current.type !== 'bridge' || current.downstream_pipeline_id !== null || current.status !== 'pending') return;
  const pipeline = await findPipeline(c.db, current.pipeline_id);
  const project = pipeline ? await findProjectById(c.db, pipeline.project_id) : undefined;
  if (!pipeline || !project) return;
  const trigger = jobPlan(current).trigger;
  const user = current.user_id !== null ? await findUserById(c.db, current.user_id) : undefined;
  if (!trigger || (!trigger.include?.length && !trigger.project)) {
    await fail(c, current, BRIDGE_FAILURES.invalidTrigger);
    return;
  }
  if (!user || user.state !== 'active') {
    await fail(c, current, BRIDGE_FAILURES.insufficientPermissions);
    return;
  }
  const variables = downstreamVariables(current);
  const chain = await upstreamChain(c, pipeline);
  let outcome: PlanOutcome;
  if (trigger.include?.length) {
    if (childDepth(chain) >= MAX_CHILD_DEPTH) {
      await fail(c, current, BRIDGE_FAILURES.tooDeep);
      return;
    }
    // A child pipeline: the included local files at the parent's commit, as one configuration.
    if ((await mayCreateOn(c, user, project, pipeline.ref, pipeline.tag === 1)) !== 'ok') {
      await fail(c, current, BRIDGE_FAILURES.insufficientPermissions);
      return;
    }
    const text = (await ciConfig()).childPipelineText(trigger);
    outcome = await planAndCreate(c, {
      project,
      ref: { ref: pipeline.ref, tag: pipeline.tag === 1, sha: pipeline.sha },
      beforeSha: pipeline.before_sha,
      source: 'parent_pipeline',
      user,
      variables,
      changedPaths: null,
      parentPipelineId: pipeline.id,
      parentJobId: current.id,
      config: { path: trigger.include[0]!, text },
      saveOnErrors: true,
    });
  } else {
    const target = await findProjectByFullPath(c.db, trigger.project!);
    if (!target) {
      await fail(c, current, BRIDGE_FAILURES.projectNotFound);
      return;
    }
    const branch = trigger.branch ?? target.default_branch;
    const ref = branch ? await resolveRef(c, target, branch) : null;
    // The reference's cyclical dependency check: a project and ref already upstream is a loop.
    if (ref && chain.some((p) => p.project_id === target.id && p.ref === ref.ref)) {
      await fail(c, current, BRIDGE_FAILURES.loop);
      return;
    }
    const allowed = await mayCreateOn(c, user, target, ref?.ref ?? branch ?? '', ref?.tag ?? false);
    if (allowed === 'invisible') {
      await fail(c, current, BRIDGE_FAILURES.projectNotFound);
      return;
    }
    if (allowed === 'denied') {
      await fail(c, current, BRIDGE_FAILURES.insufficientPermissions);
      return;
    }
    if (!ref) {
      await fail(c, current, BRIDGE_FAILURES.creationFailed);
      return;
    }
    outcome = await planAndCreate(c, {
      project: target,
      ref,
      beforeSha: '0'.repeat(40),
      source: 'pipeline',
      user,
      variables,
      changedPaths: null,
      parentJobId: current.id,
      saveOnErrors: true,
    });
  }
  if (outcome.kind === 'refused') {
    await fail(c, current, BRIDGE_FAILURES.creationFailed);
    return;
  }
  await linkDownstream(c, current, outcome.pipeline.id, trigger.strategy === 'depend');
}

/** Records the downstream pipeline on the bridge and gives the bridge its status from it. */
async function linkDownstream(c: Container, bridge: JobRow, downstreamId: number, depend: boolean): Promise<void> {
  const downstream = await findPipeline(c.db, downstreamId);
  if (!downstream) return;
  // Created with errors (an invalid file) counts as a failed creation, as in the reference.
  if (downstream.yaml_errors) {
    await setBridgeStatus(c, bridge.id, 'failed', BRIDGE_FAILURES.creationFailed, downstreamId);
    return;
  }
  if (!depend) {
    await setBridgeStatus(c, bridge.id, 'success', null, downstreamId);
    return;
  }
  const m = mirrored(downstream.status);
  await setBridgeStatus(c, bridge.id, m.status, m.reason, downstreamId);
  // The downstream pipeline may have moved on while the bridge was being linked.
  const again = await findPipeline(c.db, downstreamId);
  if (again && again.status !== downstream.status) await downstreamStatusChanged(c, again);
}

/**
 * A pipeline that a bridge triggered changed status (called by state.ts): a dependent bridge
 * follows it. Bridges without `strategy: depend`, retried bridges and bridges still being linked
 * are left alone.
 */
export async function downstreamStatusChanged(c: Container, pipeline: PipelineRow): Promise<void> {
  if (pipeline.parent_job_id === null) return;
  const bridge = await findCiJob(c.db, pipeline.parent_job_id);
  if (!bridge || bridge.type !== 'bridge' || bridge.retried === 1) return;
  if (bridge.downstream_pipeline_id !== pipeline.id) return; // not linked yet (triggerDownstream links it) or another one
  if (jobPlan(bridge).trigger?.strategy !== 'depend') return;
  const m = mirrored(pipeline.status);
  if (m.status === bridge.status && m.reason === bridge.failure_reason) return;
  if (m.status === 'running' && bridge.status === 'running') return;
  // A finished bridge only goes back to running (its child retried); it never turns from one end
  // into another: canceled with its parent, it stays canceled when the child ends canceled.
  if (m.status !== 'running' && !ACTIVE.includes(bridge.status)) return;
  await setBridgeStatus(c, bridge.id, m.status, m.reason);
}
