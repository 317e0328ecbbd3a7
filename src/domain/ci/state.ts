// THE place where job and pipeline statuses change. Every transition is a conditional update
// (src/db/repos/ci_jobs.ts transitionJob), so a concurrent cancel, a second runner or a second
// node cannot put a job into two states; every transition ends in processPipeline, which moves
// the jobs whose turn came and derives the pipeline's status by the composite rule.
import type { Container } from '../context.js';
import { compositeStatus, decideJob, ACTIVE_STATUSES, COMPLETED_STATUSES } from '../../ci/status.js';
import { pipelineCompleted } from '../vulnerabilities/findings.js';
import { enqueueAutoMerge } from '../merge_requests/auto_merge.js';
import { durationSeconds } from '../../shared/duration.js';
import type { Plan, PlannedJob } from '../../ci/config/types.js';
import {
  findCiJob, insertCiJob, latestJobsOfPipeline, replaceJobVariables, takePendingJob, transitionJob, updateJob, dueScheduledJobs, type JobRow,
} from '../../db/repos/ci_jobs.js';
import {
  childPipelineIds, findPipeline, insertPipeline, updatePipeline, withPipelineLock, type Db, type NewJob, type PipelineRow,
} from '../../db/repos/ci_pipelines.js';
import type { RunnerNodeId } from '../../db/repos/ci_runner.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { apiError, badRequest, forbidden } from '../errors.js';
import { supersedeJobsNamed } from '../../db/repos/commit_statuses.js';
import { ZERO_SHA } from '../../git/repository.js';
import { encryptSecret } from '../shared/encryption.js';
import { addSeconds, nowIso } from '../../shared/time.js';
import { newJobToken } from './job_token.js';
import { inTransaction } from '../../db/transaction.js';
import { jobHookEvent, pipelineHookEvent } from '../hooks/events.js';

import { BUILT_IN_RUNNER_ID } from './built_in_runner.js';

/** Statuses a cancel stops (manual jobs stay manual, as the reference keeps them). */
const CANCELABLE: readonly string[] = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'];
const RETRYABLE: readonly string[] = ['success', 'failed', 'canceled'];
const FINISHED_PIPELINE: readonly string[] = ['success', 'failed', 'canceled', 'skipped'];

/**
 * Every job transition: the conditional update (`move`) and, in the same transaction, the job
 * hook deliveries it causes (src/domain/hooks/events.ts).
 */
function withJobEvent(c: Container, db: Db, move: (tx: Db) => Promise<JobRow | undefined>): Promise<JobRow | undefined> {
  return inTransaction(db, async (tx) => {
    const moved = await move(tx);
    if (moved) await jobHookEvent(c, tx, moved);
    return moved;
  });
}

const moveJob = (c: Container, db: Db, id: number, from: readonly string[], patch: Parameters<typeof transitionJob>[3]) =>
  withJobEvent(c, db, (tx) => transitionJob(tx, id, from, patch));

/** The planned job of a row (ci_jobs.options). Its `variables` hold the global ones too. */
export const jobPlan = (job: Pick<JobRow, 'options'>): PlannedJob => JSON.parse(job.options) as PlannedJob;

export interface PipelineVariableInput {
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
}

export interface PipelineSeed {
  project: ProjectRow;
  ref: string;
  sha: string;
  beforeSha: string;
  tag: boolean;
  source: string;
  userId: number | null;
  commit: { message: string; authorName: string; authorEmail: string; createdAt: string } | null;
  variables: PipelineVariableInput[];
  parentPipelineId?: number | null;
  parentJobId?: number | null;
  /** The schedule that makes the pipeline (source `schedule`). */
  pipelineScheduleId?: number | null;
  /** A valid plan, or the errors that make the pipeline fail at once. */
  plan: Plan | null;
  yamlErrors?: string | null;
}

/** The global variables a job sees (`inherit: variables`: all, none, or the listed ones). */
function inheritedVariables(plan: Plan, job: PlannedJob): Record<string, string> {
  if (job.inheritVariables === false) return {};
  if (!Array.isArray(job.inheritVariables)) return plan.variables;
  const names = new Set(job.inheritVariables);
  return Object.fromEntries(Object.entries(plan.variables).filter(([k]) => names.has(k)));
}

/** Inserts the pipeline with its jobs (all `created`) and variables, then processes it. */
export async function createPipelineRecords(c: Container, seed: PipelineSeed): Promise<PipelineRow> {
  const now = nowIso();
  const failed = seed.plan === null;
  const jobs: NewJob[] = (seed.plan?.jobs ?? []).map((j) => ({
    project_id: seed.project.id,
    type: j.type,
    name: j.name,
    stage: j.stage,
    stage_idx: j.stageIdx,
    status: 'created',
    ref: seed.ref,
    tag: seed.tag ? 1 : 0,
    allow_failure: j.allowFailure ? 1 : 0,
    when: j.when,
    created_at: now,
    updated_at: now,
    tag_list: JSON.stringify(j.tags),
    user_id: seed.userId,
    options: JSON.stringify({ ...j, variables: { ...inheritedVariables(seed.plan!, j), ...j.variables } }),
  }));
  const pipeline = await insertPipeline(
    c.db,
    {
      project_id: seed.project.id,
      status: failed ? 'failed' : 'created',
      source: seed.source,
      ref: seed.ref,
      sha: seed.sha,
      before_sha: seed.beforeSha,
      tag: seed.tag ? 1 : 0,
      yaml_errors: failed ? (seed.yamlErrors ?? 'Invalid configuration') : null,
      user_id: seed.userId,
      created_at: now,
      updated_at: now,
      finished_at: failed ? now : null,
      committed_at: seed.commit ? new Date(seed.commit.createdAt).toISOString() : null,
      parent_pipeline_id: seed.parentPipelineId ?? null,
      parent_job_id: seed.parentJobId ?? null,
      pipeline_schedule_id: seed.pipelineScheduleId ?? null,
      name: seed.plan?.name ?? null,
      commit_message: seed.commit?.message ?? null,
      commit_author_name: seed.commit?.authorName ?? null,
      commit_author_email: seed.commit?.authorEmail ?? null,
      commit_created_at: seed.commit?.createdAt ?? null,
    },
    jobs,
    seed.variables.map((v) => ({ key: v.key, encrypted_value: encryptSecret(c.config.secretKey, v.value), variable_type: v.variable_type })),
  );
  if (failed) {
    if (pipeline.parent_job_id) await (await bridgesModule()).downstreamStatusChanged(c, pipeline);
    return pipeline;
  }
  return (await processPipeline(c, pipeline.id)) ?? pipeline;
}

/**
 * Parent and child pipelines drive each other: a pipeline's bridge creates a child pipeline (through
 * pipelines.ts, which creates its records here), and a child's status moves its bridge. The bridges
 * module is loaded on first use so that the modules do not import each other (no import cycle).
 */
const bridgesModule = () => import('./bridges.js');

/** The `release:` keyword's work (the releases service, which reaches back into CI through tags and pushes): loaded on first use. */
const releaseModule = () => import('./release_job.js');

/**
 * Moves the pipeline's created jobs whose predecessors completed (stage order, or `needs`) to
 * pending / manual / scheduled, or skips them; then sets the pipeline's status, times and
 * coverage from its current jobs. Serialized per pipeline by its row lock. Returns the pipeline.
 */
export async function processPipeline(c: Container, pipelineId: number): Promise<PipelineRow | undefined> {
  const result = await withPipelineLock(c.db, pipelineId, async (tx, before) => {
    const jobs = await latestJobsOfPipeline(tx, pipelineId);
    const byName = new Map(jobs.map((j) => [j.name, j]));
    const now = nowIso();
    let enqueued = false;
    const bridges: JobRow[] = [];
    for (const job of jobs) {
      if (job.status !== 'created') continue;
      const plan = jobPlan(job);
      const dag = plan.needs !== null && plan.needs !== undefined;
      const prior = dag
        ? compositeStatus(plan.needs!.map((n) => byName.get(n.job)).filter((j): j is JobRow => !!j), { dag: true })
        : compositeStatus(jobs.filter((j) => j.stage_idx < job.stage_idx));
      const decision = decideJob(job.when, prior, dag);
      if (decision === 'wait') continue;
      let patch: Partial<JobRow>;
      if (decision === 'skip') patch = { status: 'skipped' };
      else if (job.when === 'manual') patch = { status: 'manual' };
      else if (job.when === 'delayed') patch = { status: 'scheduled', scheduled_at: addSeconds(now, durationSeconds(plan.startIn ?? '') ?? 0) };
      else patch = { status: 'pending', queued_at: now };
      const moved = await moveJob(c, tx, job.id, ['created'], { ...patch, updated_at: now });
      if (!moved) continue;
      Object.assign(job, moved);
      if (moved.status === 'pending') {
        if (moved.type === 'bridge') bridges.push(moved);
        else enqueued = true;
      }
    }
    const status = compositeStatus(jobs) ?? (before.yaml_errors ? 'failed' : 'skipped');
    const patch = pipelinePatch(before, jobs, status, now);
    const after = patch ? ((await updatePipeline(tx, pipelineId, patch)) ?? before) : before;
    if (after.status !== before.status) {
      await pipelineHookEvent(c, tx, after.project_id, after.id);
      if (FINISHED_PIPELINE.includes(after.status)) {
        await pipelineCompleted(c, tx, after);
        await enqueueAutoMerge(c, tx, after);
      }
    }
    return { after, changed: after.status !== before.status, enqueued, bridges };
  });
  if (!result) return undefined;
  if (result.enqueued) c.ciSignals.emit('pending');
  for (const bridge of result.bridges) await (await bridgesModule()).triggerDownstream(c, bridge);
  if (result.changed && result.after.parent_job_id) await (await bridgesModule()).downstreamStatusChanged(c, result.after);
  // Bridges may have changed the pipeline again; read it fresh when they ran.
  return result.bridges.length ? await findPipeline(c.db, pipelineId) : result.after;
}

/** The pipeline columns that follow from its jobs' statuses; null when nothing changed. */
function pipelinePatch(p: PipelineRow, jobs: JobRow[], status: string, now: string): Partial<PipelineRow> | null {
  const patch: Partial<PipelineRow> = {};
  if (status !== p.status) {
    patch.status = status;
    if (status === 'running' && !p.started_at) {
      patch.started_at = now;
      patch.queued_duration = Math.max(0, Math.round((Date.parse(now) - Date.parse(p.created_at)) / 1000));
    }
    if (FINISHED_PIPELINE.includes(status)) {
      patch.finished_at = now;
      patch.duration = busySeconds(jobs);
    } else if (p.finished_at) {
      patch.finished_at = null; // running again (a retry)
    }
  }
  const covered = jobs.filter((j) => j.coverage !== null);
  const coverage = covered.length ? (covered.reduce((s, j) => s + Number(j.coverage), 0) / covered.length).toFixed(2) : null;
  if (coverage !== p.coverage) patch.coverage = coverage;
  if (Object.keys(patch).length === 0) return null;
  patch.updated_at = now;
  return patch;
}

/** Seconds during which at least one job ran (overlapping runs counted once), as the reference's duration. */
function busySeconds(jobs: JobRow[]): number | null {
  const periods = jobs
    .filter((j) => j.started_at && j.finished_at)
    .map((j) => [Date.parse(j.started_at!), Date.parse(j.finished_at!)] as const)
    .sort((a, b) => a[0] - b[0]);
  if (periods.length === 0) return null;
  let total = 0;
  let [start, end] = periods[0]!;
  for (const [s, e] of periods.slice(1)) {
    if (s > end) {
      total += end - start;
      [start, end] = [s, e];
    } else end = Math.max(end, e);
  }
  total += end - start;
  return Math.round(total / 1000);
}

/**
 * A runner takes a pending build: pending → running with a fresh job token (only its digest is
 * stored), owned by the runner's node and boot (runner_nodes.ts). Null when the job is no longer
 * pending (another runner took it, or it was canceled).
 */
export async function startJob(c: Container, jobId: number, node?: RunnerNodeId, runnerId = BUILT_IN_RUNNER_ID): Promise<{ job: JobRow; token: string } | null> {
  const { token, digest } = newJobToken();
  const now = nowIso();
  const current = await findCiJob(c.db, jobId);
  if (!current || current.status !== 'pending') return null;
  const patch = {
    status: 'running',
    started_at: now,
    updated_at: now,
    queued_duration: current.queued_at ? (Date.parse(now) - Date.parse(current.queued_at)) / 1000 : 0,
    runner_id: runnerId,
    runner_node_id: node?.nodeId ?? null,
    runner_boot_id: node?.bootId ?? null,
    token_digest: digest,
  };
  const job = await withJobEvent(c, c.db, (tx) => (node ? takePendingJob(tx, jobId, node, patch) : transitionJob(tx, jobId, ['pending'], patch)));
  if (!job) return null;
  await processPipeline(c, job.pipeline_id);
  return { job, token };
}

export interface JobOutcome {
  status: 'success' | 'failed';
  failureReason?: string | null;
  exitCode?: number | null;
  coverage?: number | null;
}

/**
 * A running job ended. A failure that `retry:` allows becomes a new job (the failed one marked
 * retried); `allow_failure: {exit_codes}` decides from the exit code whether the failure counts.
 * Nothing happens when the job is no longer running (it was canceled meanwhile).
 */
export async function finishJob(c: Container, jobId: number, outcome: JobOutcome): Promise<JobRow | undefined> {
  const current = await findCiJob(c.db, jobId);
  if (!current || current.status !== 'running') return undefined;
  const plan = jobPlan(current);
  // `release:` makes its release when the job's script succeeded; a release that cannot be made fails the job, as release-cli would.
  if (outcome.status === 'success' && plan.release) {
    const refusal = await (await releaseModule()).releaseOfJob(c, current, plan.release);
    if (refusal) {
      c.log.warn({ jobId, refusal }, 'release: the release could not be made');
      outcome = { ...outcome, status: 'failed', failureReason: 'script_failure' };
    }
  }
  const now = nowIso();
  const failed = outcome.status === 'failed';
  const reason = failed ? (outcome.failureReason ?? 'script_failure') : null;
  let allowFailure = current.allow_failure;
  if (failed && plan.allowFailureExitCodes) allowFailure = plan.allowFailureExitCodes.includes(outcome.exitCode ?? -1) ? 1 : 0;
  const autoRetry = failed && current.retry_count < (plan.retry?.max ?? 0) && retryAllows(plan.retry.when, reason!);
  const job = await moveJob(c, c.db, jobId, ['running'], {
    status: outcome.status,
    failure_reason: reason,
    exit_code: outcome.exitCode ?? null,
    coverage: outcome.coverage ?? null,
    allow_failure: allowFailure,
    finished_at: now,
    updated_at: now,
    duration: current.started_at ? (Date.parse(now) - Date.parse(current.started_at)) / 1000 : null,
    token_digest: null,
  });
  if (!job) return undefined;
  if (autoRetry) {
    await cloneForRetry(c, job, job.user_id, job.retry_count + 1);
  }
  await processPipeline(c, job.pipeline_id);
  return job;
}

function retryAllows(when: string[] | undefined, reason: string): boolean {
  const kinds = when && when.length ? when : ['always'];
  return kinds.includes('always') || kinds.includes(reason) || (reason === 'stuck_or_timeout_failure' && kinds.includes('job_execution_timeout'));
}

/** A copy of the job, `created`, that takes its place (the old one is marked retried). */
async function cloneForRetry(c: Container, job: JobRow, userId: number | null, retryCount: number): Promise<JobRow> {
  const now = nowIso();
  await updateJob(c.db, job.id, { retried: 1, updated_at: now });
  const plan = jobPlan(job);
  return insertCiJob(c.db, {
    project_id: job.project_id,
    pipeline_id: job.pipeline_id,
    type: job.type,
    name: job.name,
    stage: job.stage,
    stage_idx: job.stage_idx,
    status: 'created',
    ref: job.ref,
    tag: job.tag,
    allow_failure: plan.allowFailure ? 1 : 0,
    when: job.when,
    created_at: now,
    updated_at: now,
    tag_list: job.tag_list,
    user_id: userId,
    retry_count: retryCount,
    options: job.options,
  });
}

/** Stops the job if it has not finished (a running one: its runner kills the process). */
export async function cancelJob(c: Container, jobId: number): Promise<JobRow | undefined> {
  const before = await findCiJob(c.db, jobId);
  if (!before) return undefined;
  const job = await cancelOne(c, before);
  if (!job) return before;
  await processPipeline(c, job.pipeline_id);
  return (await findCiJob(c.db, jobId)) ?? job;
}

/**
 * The cancel itself, without processing the pipeline; undefined when the job was not cancelable.
 * A canceled bridge cancels the pipeline it triggered unless `cascade` is false.
 */
async function cancelOne(c: Container, before: JobRow, cascade = true): Promise<JobRow | undefined> {
  const now = nowIso();
  const job = await moveJob(c, c.db, before.id, CANCELABLE, {
    status: 'canceled',
    updated_at: now,
    finished_at: before.started_at ? now : null,
    duration: before.started_at ? (Date.parse(now) - Date.parse(before.started_at)) / 1000 : null,
    // A registered runner keeps its job token until it reports the job's end: it learns of the
    // cancel through `Job-Status: canceling` and still sends the rest of the log.
    token_digest: before.status === 'running' && before.runner_id !== null && before.runner_id !== BUILT_IN_RUNNER_ID ? before.token_digest : null,
  });
  if (!job) return undefined;
  if (before.status === 'running') c.ciSignals.emit('canceled', job.id);
  if (cascade && job.type === 'bridge' && job.downstream_pipeline_id) await cancelPipeline(c, job.downstream_pipeline_id);
  return job;
}

/**
 * Retries a finished job: a NEW job takes its place (the old one is marked retried and hidden
 * from the pipeline's job list), and later jobs that were skipped wait for it again.
 */
export async function retryJob(c: Container, actor: Actor, jobId: number): Promise<JobRow> {
  const job = await findCiJob(c.db, jobId);
  if (!job || job.retried || !RETRYABLE.includes(job.status)) throw forbidden('Job is not retryable');
  const fresh = await cloneForRetry(c, job, actor.user.id, 0);
  await resetSkippedAfter(c, fresh);
  await processPipeline(c, job.pipeline_id);
  return (await findCiJob(c.db, fresh.id)) ?? fresh;
}

/** Jobs after `job` (later stages, or needing it) that were skipped go back to created. */
async function resetSkippedAfter(c: Container, job: JobRow): Promise<void> {
  const jobs = await latestJobsOfPipeline(c.db, job.pipeline_id);
  const now = nowIso();
  for (const j of jobs) {
    if (j.status !== 'skipped' || j.id === job.id) continue;
    const needs = jobPlan(j).needs;
    const after = needs ? needs.some((n) => n.job === job.name) : j.stage_idx > job.stage_idx;
    if (after) await moveJob(c, c.db, j.id, ['skipped'], { status: 'created', updated_at: now });
  }
}

/**
 * Starts a manual job (or a delayed one now), with optional variables for it; a manual job that
 * already ran is retried as a new job. 400 "Unplayable Job" otherwise.
 */
export async function playJob(c: Container, actor: Actor, jobId: number, variables: { key: string; value: string }[] = []): Promise<JobRow> {
  const job = await findCiJob(c.db, jobId);
  if (!job || job.retried || job.type !== 'build') throw badRequest('Unplayable Job');
  const saveVariables = (id: number) =>
    replaceJobVariables(
      c.db,
      id,
      variables.map((v) => ({ key: v.key, encrypted_value: encryptSecret(c.config.secretKey, v.value), variable_type: 'env_var' })),
    );
  const now = nowIso();
  if (job.status === 'manual' || job.status === 'scheduled') {
    await saveVariables(job.id);
    const played = await moveJob(c, c.db, job.id, ['manual', 'scheduled'], { status: 'pending', queued_at: now, updated_at: now, user_id: actor.user.id });
    if (!played) throw badRequest('Unplayable Job');
    await resetSkippedAfter(c, played);
    await processPipeline(c, job.pipeline_id);
    c.ciSignals.emit('pending');
    return played; // as played: a runner may already have taken it
  }
  if ((job.when === 'manual' || job.when === 'delayed') && RETRYABLE.includes(job.status)) {
    const fresh = await cloneForRetry(c, job, actor.user.id, 0);
    await saveVariables(fresh.id);
    const played = (await moveJob(c, c.db, fresh.id, ['created'], { status: 'pending', queued_at: now, updated_at: now })) ?? fresh;
    await resetSkippedAfter(c, played);
    await processPipeline(c, job.pipeline_id);
    c.ciSignals.emit('pending');
    return (await findCiJob(c.db, fresh.id)) ?? played;
  }
  throw badRequest('Unplayable Job');
}

/**
 * Cancels every unfinished job of the pipeline, all before the pipeline is processed again (a
 * later stage's job is canceled, not skipped). Unless `cascade` is false, the pipelines its
 * bridges triggered and its child pipelines at any depth are canceled too, whatever their
 * bridge's status (a bridge without `strategy: depend` passed once its child existed), as the
 * reference's CancelPipelineService with cascade_to_children; auto-cancel weighs each pipeline
 * on its own (cascade false).
 */
export async function cancelPipeline(c: Container, pipelineId: number, opts: { cascade?: boolean } = {}): Promise<PipelineRow | undefined> {
  const cascade = opts.cascade ?? true;
  const jobs = await latestJobsOfPipeline(c.db, pipelineId);
  for (const j of jobs) if (CANCELABLE.includes(j.status)) await cancelOne(c, j, cascade);
  if (cascade) for (const child of await childPipelineIds(c.db, [pipelineId])) await cancelPipeline(c, child);
  return processPipeline(c, pipelineId);
}

/** Bridge failures that a retry would only repeat (the reference's Ci::Bridge#retryable?). */
const UNRETRYABLE_BRIDGE_FAILURES: readonly string[] = ['pipeline_loop_detected', 'reached_max_descendant_pipelines_depth'];

/**
 * Retries every failed or canceled job of the pipeline (new jobs), then processes it. A retried
 * bridge triggers a new downstream pipeline when its turn comes (the reference recreates
 * downstream pipelines since 15.11); a retried child pipeline puts its dependent bridge back to
 * running through downstreamStatusChanged (the reference's reset_source_bridge!).
 */
export async function retryPipeline(c: Container, actor: Actor, pipelineId: number): Promise<PipelineRow | undefined> {
  const jobs = await latestJobsOfPipeline(c.db, pipelineId);
  for (const j of jobs) {
    if (j.status !== 'failed' && j.status !== 'canceled') continue;
    if (j.type === 'generic') continue; // an external status is its sender's to set again
    if (j.type === 'bridge' && UNRETRYABLE_BRIDGE_FAILURES.includes(j.failure_reason ?? '')) continue;
    const fresh = await cloneForRetry(c, j, actor.user.id, 0);
    await resetSkippedAfter(c, fresh);
  }
  // A canceled pipeline's manual jobs stay manual; skipped jobs after retried ones wait again.
  return processPipeline(c, pipelineId);
}

/** Delayed jobs whose time came become pending. Returns how many moved. */
export async function promoteScheduledJobs(c: Container, limit = 100): Promise<number> {
  const now = nowIso();
  const due = await dueScheduledJobs(c.db, now, limit);
  const pipelines = new Set<number>();
  for (const j of due) {
    if (await moveJob(c, c.db, j.id, ['scheduled'], { status: 'pending', queued_at: now, updated_at: now })) pipelines.add(j.pipeline_id);
  }
  for (const id of pipelines) await processPipeline(c, id);
  if (pipelines.size) c.ciSignals.emit('pending');
  return due.length;
}

/** Marks a bridge's (or any non-runner job's) status from outside the runner: the bridges module. */
export async function setBridgeStatus(
  c: Container,
  jobId: number,
  status: 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual',
  failureReason: string | null = null,
  downstreamPipelineId?: number,
): Promise<JobRow | undefined> {
  const now = nowIso();
  const before = await findCiJob(c.db, jobId);
  if (!before || before.type !== 'bridge') return undefined;
  const finished = COMPLETED_STATUSES.includes(status);
  const job = await moveJob(c, c.db, jobId, [...ACTIVE_STATUSES, ...COMPLETED_STATUSES], {
    status,
    failure_reason: status === 'failed' ? (failureReason ?? 'downstream_pipeline_creation_failed') : null,
    started_at: before.started_at ?? now,
    finished_at: finished ? now : null,
    duration: finished ? (Date.parse(now) - Date.parse(before.started_at ?? now)) / 1000 : null,
    updated_at: now,
    ...(downstreamPipelineId !== undefined ? { downstream_pipeline_id: downstreamPipelineId } : {}),
  });
  if (job && job.status !== before.status) await processPipeline(c, job.pipeline_id);
  return job;
}

// ---- external commit statuses ----

/** The states an external status may be set to (POST /projects/:id/statuses/:sha). */
export type ExternalState = 'pending' | 'running' | 'success' | 'failed' | 'canceled';

/** The stage external statuses join, after every stage of the CI file (the reference's EXTERNAL_STAGE_IDX). */
export const EXTERNAL_STAGE = 'external';
export const EXTERNAL_STAGE_IDX = 1_000_000;

/** The reference's CommitStatus state machine: each event and the statuses it moves from. */
const STATUS_EVENTS = {
  enqueue: { from: ['created', 'skipped', 'manual', 'scheduled'], to: 'pending' },
  run: { from: ['pending'], to: 'running' },
  success: { from: ['created', 'waiting_for_resource', 'preparing', 'pending', 'running'], to: 'success' },
  drop: { from: ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'manual', 'scheduled'], to: 'failed' },
  cancel: { from: ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'manual', 'scheduled'], to: 'canceled' },
} as const;
type StatusEvent = keyof typeof STATUS_EVENTS;

/** The events a state is reached by; a `?` event may fail quietly (`running` tries `enqueue` first, as the reference does). */
const EVENTS_OF: Record<ExternalState, Array<[StatusEvent, boolean]>> = {
  pending: [['enqueue', true]],
  running: [['enqueue', false], ['run', true]],
  success: [['success', true]],
  failed: [['drop', true]],
  canceled: [['cancel', true]],
};

/**
 * The status a job at `from` ends in when set to `state`, and its time columns; the reference's
 * InvalidTransition words (a 400 through the API) when it cannot get there.
 */
export function externalTransition(from: string, state: ExternalState, now: string, job: Pick<JobRow, 'started_at'> | null): Partial<JobRow> {
  let status = from;
  const patch: Partial<JobRow> = {};
  for (const [event, required] of EVENTS_OF[state]) {
    const rule = STATUS_EVENTS[event];
    if (!(rule.from as readonly string[]).includes(status)) {
      if (!required) continue;
      throw apiError(`Cannot transition status via :${event} from :${status} (Reason(s): Status cannot transition via "${event}")`, 400);
    }
    if (rule.to === 'pending') patch.queued_at = now;
    if (rule.to === 'running') patch.started_at = now;
    status = rule.to;
  }
  patch.status = status;
  if (COMPLETED_STATUSES.includes(status)) {
    patch.finished_at = now;
    const started = patch.started_at ?? job?.started_at ?? null;
    patch.duration = started ? (Date.parse(now) - Date.parse(started)) / 1000 : null;
  }
  if (status === 'failed') patch.failure_reason = 'api_failure';
  patch.updated_at = now;
  return patch;
}

export interface ExternalStatusInput {
  name: string;
  ref: string;
  tag: boolean;
  userId: number;
  state: ExternalState;
  coverage: number | null | undefined;
}

/** A pipeline for external statuses alone (source `external`): `created` until a status joins it. */
export async function insertExternalPipeline(c: Container, seed: Omit<PipelineSeed, 'plan' | 'variables' | 'source' | 'beforeSha'>): Promise<PipelineRow> {
  const now = nowIso();
  return insertPipeline(
    c.db,
    {
      project_id: seed.project.id,
      status: 'created',
      source: 'external',
      ref: seed.ref,
      sha: seed.sha,
      before_sha: ZERO_SHA,
      tag: seed.tag ? 1 : 0,
      yaml_errors: null,
      user_id: seed.userId,
      created_at: now,
      updated_at: now,
      finished_at: null,
      committed_at: seed.commit ? new Date(seed.commit.createdAt).toISOString() : null,
      parent_pipeline_id: null,
      parent_job_id: null,
      pipeline_schedule_id: null,
      name: null,
      commit_message: seed.commit?.message ?? null,
      commit_author_name: seed.commit?.authorName ?? null,
      commit_author_email: seed.commit?.authorEmail ?? null,
      commit_created_at: seed.commit?.createdAt ?? null,
    },
    [],
    [],
  );
}

/**
 * Sets an external status: the open one (pending or running, same name, ref and user) moves, or a
 * new job of type `generic` joins the pipeline in stage `external` (older jobs of its name count
 * as retried); then the pipeline's status follows from its jobs. The new state is applied with
 * the job's own conditional update, so a concurrent change cannot be overwritten.
 */
export async function setExternalStatus(c: Container, pipeline: PipelineRow, open: JobRow | undefined, s: ExternalStatusInput): Promise<JobRow> {
  const now = nowIso();
  let job: JobRow | undefined;
  if (open) {
    const patch = externalTransition(open.status, s.state, now, open);
    job = await transitionJob(c.db, open.id, [open.status], { ...patch, ...(s.coverage !== undefined ? { coverage: s.coverage } : {}) });
    if (!job) {
      const fresh = await findCiJob(c.db, open.id);
      externalTransition(fresh?.status ?? open.status, s.state, now, fresh ?? open); // its words, when it cannot
      throw apiError('Status changed meanwhile; try again', 409);
    }
  } else {
    const patch = externalTransition('created', s.state, now, null);
    job = await insertCiJob(c.db, {
      project_id: pipeline.project_id,
      pipeline_id: pipeline.id,
      type: 'generic',
      name: s.name,
      stage: EXTERNAL_STAGE,
      stage_idx: EXTERNAL_STAGE_IDX,
      status: 'created',
      ref: s.ref,
      tag: s.tag ? 1 : 0,
      allow_failure: 0,
      when: 'on_success',
      created_at: now,
      user_id: s.userId,
      options: '{}',
      coverage: s.coverage ?? null,
      ...patch,
      updated_at: now,
    });
    await supersedeJobsNamed(c.db, pipeline.id, s.name, job.id);
  }
  await processPipeline(c, pipeline.id);
  return job;
}
