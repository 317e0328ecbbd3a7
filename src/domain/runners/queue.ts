// The job queue of registered runners: which pending build a runner may take (scope, tags,
// run_untagged, access_level, paused), the atomic claim (state.ts startJob: one runner gets a
// job, whatever the number of nodes), and `POST /jobs/request`'s long poll, bounded, keyed by
// `X-GitLab-Last-Update`: the queue's version, which moves when a build becomes pending or is
// taken, or when the runner's own settings change.
import { createHash } from 'node:crypto';
import type { Container } from '../context.js';
import { pendingBuildsAfter, pendingQueueStamp, type PendingBuild, type RunnerRow } from '../../db/repos/runners.js';
import { runnerProjectIds } from '../../db/repos/runners.js';
import { findNamespaceById } from '../../db/repos/namespaces.js';
import { findProjectById } from '../../db/repos/projects.js';
import { findPipeline } from '../../db/repos/ci_pipelines.js';
import { jobPayload } from './payload.js';
import { loadProtection, matchingRules } from '../protected_branches/policy.js';
import { conflict } from '../errors.js';
import { startJob } from '../ci/state.js';
import { BUILT_IN_RUNNER_ID } from '../ci/built_in_runner.js';
import { tagsOf } from './runners.js';

/** Pending builds looked at per request (oldest first); a runner matching none of them waits. */
const SCAN_LIMIT = 500;
const SCAN_PAGE = 100;
/** While long polling, other nodes' changes are seen within this. */
const POLL_STEP_MS = 1000;

/** What routing knows of a runner. */
export interface RoutingRunner {
  id: number;
  runner_type: string;
  group_id: number | null;
  paused: number;
  run_untagged: number;
  tag_list: string;
  access_level: string;
}

/** The built-in runner as routing sees it: an instance runner with ANVIL_RUNNER_TAGS and ANVIL_RUNNER_RUN_UNTAGGED. */
export const builtInRoutingRunner = (config: Container['config']): RoutingRunner => ({
  id: BUILT_IN_RUNNER_ID,
  runner_type: 'instance_type',
  group_id: null,
  paused: 0,
  run_untagged: config.runnerRunUntagged ? 1 : 0,
  tag_list: JSON.stringify(config.runnerTags),
  access_level: 'not_protected',
});

/** Whether a build's tags let the runner take it: all of them are the runner's, or none and it runs untagged. */
export function tagsAllow(runnerTags: string[], runUntagged: boolean, jobTags: string[]): boolean {
  if (jobTags.length === 0) return runUntagged;
  return jobTags.every((t) => runnerTags.includes(t));
}

/** The scope test of a runner, built once per request (its projects, its group's path). */
async function scopeTest(c: Container, runner: RoutingRunner): Promise<(b: PendingBuild) => boolean> {
  if (runner.runner_type === 'instance_type') return (b) => b.shared_runners_enabled === 1;
  if (runner.runner_type === 'group_type') {
    const group = runner.group_id !== null ? await findNamespaceById(c.db, runner.group_id) : undefined;
    if (!group) return () => false;
    const path = group.full_path_lower;
    return (b) => b.namespace_path === path || b.namespace_path.startsWith(`${path}/`);
  }
  const projects = new Set(await runnerProjectIds(c.db, runner.id));
  return (b) => projects.has(b.project_id);
}

async function refIsProtected(c: Container, b: PendingBuild): Promise<boolean> {
  if (b.tag === 1) return false;
  return matchingRules(await loadProtection(c, b.project_id), b.ref).length > 0;
}

/**
 * The pending builds the runner may take, oldest first (at most SCAN_LIMIT looked at). Yields
 * ids; the caller claims them one by one.
 */
export async function* buildsFor(c: Container, runner: RoutingRunner): AsyncGenerator<number> {
  if (runner.paused === 1) return;
  const inScope = await scopeTest(c, runner);
  const tags = tagsOf(runner);
  const untagged = runner.run_untagged === 1;
  for (let afterId = 0, seen = 0; seen < SCAN_LIMIT; ) {
    const page = await pendingBuildsAfter(c.db, afterId, SCAN_PAGE);
    for (const b of page) {
      if (!inScope(b) || !tagsAllow(tags, untagged, JSON.parse(b.tag_list) as string[])) continue;
      if (runner.access_level === 'ref_protected' && !(await refIsProtected(c, b))) continue;
      yield b.id;
    }
    if (page.length < SCAN_PAGE) return;
    seen += page.length;
    afterId = page[page.length - 1]!.id;
  }
}

/** The queue's version as this runner sees it: pending builds, and its own settings. */
export async function queueVersion(c: Container, runner: RunnerRow): Promise<string> {
  const stamp = await pendingQueueStamp(c.db);
  const own = createHash('sha256').update(`${runner.updated_at}|${runner.paused}|${runner.tag_list}|${runner.run_untagged}|${runner.access_level}`).digest('hex').slice(0, 12);
  return `${stamp}-${own}`;
}

/** Waits until a build becomes pending (this node's signal) or the version moves (any node), at most `ms`. */
async function waitForChange(c: Container, runner: RunnerRow, version: string, ms: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !signal.aborted) {
    const step = Math.min(POLL_STEP_MS, deadline - Date.now());
    const woken = await new Promise<boolean>((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        c.ciSignals.off('pending', onPending);
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onPending = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), step);
      c.ciSignals.on('pending', onPending);
      signal.addEventListener('abort', onAbort);
    });
    if (woken || (await queueVersion(c, runner)) !== version) return;
  }
}

export type JobRequestResult = { kind: 'job'; payload: Record<string, unknown>; version: string } | { kind: 'none'; version: string };

/**
 * `POST /jobs/request`: a job for the runner, or none. When the runner's `last_update` is the
 * queue's version (nothing changed since its last look), waits up to the long-poll bound first.
 * 409 when every build it could take was taken by another runner meanwhile (it asks again).
 */
export async function requestJob(c: Container, runner: RunnerRow, lastUpdate: string | null, signal: AbortSignal): Promise<JobRequestResult> {
  let version = await queueVersion(c, runner);
  if (lastUpdate !== null && lastUpdate === version && c.config.runnerLongPollSeconds > 0) {
    await waitForChange(c, runner, version, c.config.runnerLongPollSeconds * 1000, signal);
    version = await queueVersion(c, runner);
    if (version === lastUpdate) return { kind: 'none', version };
  }
  let conflicted = false;
  for await (const id of buildsFor(c, runner)) {
    const got = await startJob(c, id, undefined, runner.id);
    if (!got) {
      conflicted = true;
      continue;
    }
    const [project, pipeline] = await Promise.all([findProjectById(c.db, got.job.project_id), findPipeline(c.db, got.job.pipeline_id)]);
    if (!project || !pipeline) continue; // deleted while it was being taken
    const payload = await jobPayload(c, { job: got.job, token: got.token, project, pipeline, runner });
    return { kind: 'job', payload, version: await queueVersion(c, runner) };
  }
  if (conflicted) throw conflict('409 Conflict');
  return { kind: 'none', version };
}
