// Merging a merge request for real: the project's merge method (a merge commit; a merge commit
// over a fast-forwardable source, "semi-linear"; a fast-forward), squash, commit templates, the
// reference's refusals; merge-when-pipeline-succeeds; rebase; the merge ref. The commits are
// written by src/git/merges.ts without a work tree; the target branch then moves as every ref
// does: checkRefUpdates (a protected branch's merge entries), then moveRefs (intent, compare-and-
// swap, publication: events, hooks, push pipelines). There is no other way a merge moves a ref.
import type { Container } from '../context.js';
import type { PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findPipeline } from '../../db/repos/ci_pipelines.js';
import {
  findMergeRequestById, updateMergeRequest, updateMergeRequestIn, waitingForPipelines, type MergeRequestDiffRow, type MergeRequestRow,
} from '../../db/repos/merge_requests.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { findUserById } from '../../db/repos/users.js';
import { commitsBetween, compareAndSwapRef } from '../../git/objects.js';
import { commitTree, fetchRef, rebaseCommits, setInternalRef, treeOf, writeMergeCommit, writeSquashCommit } from '../../git/merges.js';
import { isAncestor, mergeBase, resolveRevision, type Person } from '../../git/repository.js';
import { nowIso } from '../../shared/time.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { deleteBranch } from '../branches/service.js';
import { apiError, DomainError, forbidden, methodNotAllowed, unauthorized } from '../errors.js';
import { recordEvent } from '../events/service.js';
import { projectAccess } from '../projects/policy.js';
import { canPushToBranch, loadProtection } from '../protected_branches/policy.js';
import { checkRefUpdates } from '../repository/protection.js';
import { moveRefs } from '../repository/ref_changes.js';
import { repositoryDir } from '../repository/service.js';
import { mergeRef, refreshMergeRequest } from './refresh.js';
import {
  canMergeRequest, detailOf, findMergeRequestFor, headPipelineOf, isDraft, mergeRequestChanged, squashFor, type MergeRequestDetail,
} from './service.js';

export interface MergeInput {
  merge_commit_message?: string;
  squash_commit_message?: string;
  squash?: boolean;
  should_remove_source_branch?: boolean;
  merge_when_pipeline_succeeds?: boolean;
  sha?: string;
}

const RUNNING = new Set(['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled']);

/** The pipeline check of the reference's mergeable_ci_state?: with only_allow_merge_if_pipeline_succeeds, a succeeded (or allowed skipped) head pipeline. */
function ciAllows(project: ProjectRow, pipeline: PipelineRow | null): boolean {
  if (project.only_allow_merge_if_pipeline_succeeds !== 1) return true;
  if (!pipeline) return false;
  return pipeline.status === 'success' || (pipeline.status === 'skipped' && project.allow_merge_on_skipped_pipeline === 1);
}

/** The reference's mergeable_state?: open, not a draft, its branches there, the pipeline (unless skipped) and discussions allowing it. */
function mergeableState(project: ProjectRow, mr: MergeRequestRow, diff: MergeRequestDiffRow | null, pipeline: PipelineRow | null, sourceExists: boolean, skipCi: boolean): boolean {
  if (mr.state !== 'opened') return false;
  if (isDraft(mr.title)) return false;
  if (!diff || !sourceExists) return false;
  if (!skipCi && !ciAllows(project, pipeline)) return false;
  return true;
}

/** The method needs the source on top of the target (fast-forward, semi-linear) and it is not. */
const needsRebase = async (dir: string, project: ProjectRow, target: string, head: string): Promise<boolean> =>
  project.merge_method !== 'merge' && !(await isAncestor(dir, target, head));

const personOf = (actor: Actor): Person => ({ name: actor.user.name, email: actor.user.commit_email || actor.user.email });

/** `%{name}` placeholders of a commit template, as the reference fills them; unknown ones stay. */
async function fillTemplate(c: Container, template: string, project: ProjectRow, mr: MergeRequestRow, diff: MergeRequestDiffRow, merger: Actor): Promise<string> {
  const dir = repositoryDir(c, project.id);
  const commits = await commitsBetween(dir, diff.head_commit_sha, diff.start_commit_sha, 100);
  const first = commits[commits.length - 1];
  const firstLine = (m: string) => m.split('\n')[0];
  const values: Record<string, string> = {
    source_branch: mr.source_branch,
    target_branch: mr.target_branch,
    title: mr.title,
    description: mr.description ?? '',
    reference: `${project.full_path}!${mr.iid}`,
    local_reference: `!${mr.iid}`,
    source_project_id: String(mr.source_project_id),
    first_commit: first ? first.message.trim() : '',
    first_multiline_commit: commits.slice().reverse().find((x) => x.message.trim().includes('\n'))?.message.trim() ?? mr.title,
    url: `${c.config.externalUrl}/${project.full_path}/-/merge_requests/${mr.iid}`,
    merged_by: `${merger.user.name} <${merger.user.commit_email || merger.user.email}>`,
    issues: '',
    approved_by: '',
    co_authored_by: [...new Set(commits.filter((x) => x.authorEmail !== (merger.user.commit_email || merger.user.email)).map((x) => `Co-authored-by: ${x.authorName} <${x.authorEmail}>`))].join('\n'),
    all_commits: commits.map((x) => `* ${firstLine(x.message)}`).join('\n'),
  };
  // A line holding only an empty placeholder goes, as the reference drops it.
  return template
    .split('\n')
    .filter((line) => !/^%\{(\w+)\}$/.test(line.trim()) || (values[line.trim().slice(2, -1)] ?? 'x') !== '')
    .join('\n')
    .replace(/%\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole)
    .trimEnd();
}

/** The reference's default merge commit message. */
export function defaultMergeMessage(project: ProjectRow, mr: MergeRequestRow): string {
  return [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title, `See merge request ${project.full_path}!${mr.iid}`].join('\n\n');
}

interface MergeParams {
  mergeMessage?: string;
  squashMessage?: string;
  squash: boolean;
  removeSource: boolean;
}

/**
 * Writes the merge and moves the target branch: one ref change, from the target head read here
 * to the new commit, compare-and-swap. Returns the merged row; throws the reference's 406 when
 * git cannot merge (conflicts, a method that needs a rebase).
 */
async function executeMerge(c: Container, actor: Actor, project: ProjectRow, mr: MergeRequestRow, diff: MergeRequestDiffRow, p: MergeParams): Promise<MergeRequestRow> {
  const dir = repositoryDir(c, project.id);
  const ref = `refs/heads/${mr.target_branch}`;
  const head = diff.head_commit_sha;
  const who = personOf(actor);
  for (let attempt = 0; attempt < 3; attempt++) {
    const target = await resolveRevision(dir, ref);
    if (!target) throw apiError('Branch cannot be merged', 406);
    if (await needsRebase(dir, project, target, head)) throw apiError('Branch cannot be merged', 406);
    let source = head;
    let squashSha: string | null = null;
    if (p.squash) {
      const base = await mergeBase(dir, target, head);
      if (!base) throw apiError('Branch cannot be merged', 406);
      const commits = await commitsBetween(dir, head, base, 2);
      const message = p.squashMessage ?? (project.squash_commit_template ? await fillTemplate(c, project.squash_commit_template, project, mr, diff, actor) : mr.title);
      if (commits.length > 1 || (commits[0] && commits[0].message.trim() !== message.trim())) {
        const first = (await commitsBetween(dir, head, base, 1000)).pop();
        const author = first ? { name: first.authorName, email: first.authorEmail } : who;
        source = await writeSquashCommit(dir, base, head, message, author, who);
        squashSha = source;
      }
    }
    const message =
      p.mergeMessage ?? (project.merge_commit_template ? await fillTemplate(c, project.merge_commit_template, project, mr, diff, actor) : defaultMergeMessage(project, mr));
    let newSha: string | null;
    if (project.merge_method === 'ff') newSha = source;
    else if (project.merge_method === 'rebase_merge') newSha = await commitTree(dir, await treeOf(dir, source), [target, source], message, who);
    else newSha = await writeMergeCommit(dir, target, source, message, who);
    if (!newSha) throw apiError('Branch cannot be merged', 406);
    const update = { ref, oldSha: target, newSha, force: false };
    await checkRefUpdates(c, actor, project, [update], { via: 'web', merge: true });
    if (!(await moveRefs(c, actor, project, [update], () => compareAndSwapRef(dir, ref, newSha!, target)))) continue; // the target moved meanwhile
    const now = nowIso();
    const merged = await updateMergeRequestIn(c.db, mr.id, 'opened', {
      state: 'merged',
      merged_at: now,
      merged_by_id: actor.user.id,
      merge_user_id: actor.user.id,
      merge_commit_sha: project.merge_method === 'ff' ? null : newSha,
      squash_commit_sha: squashSha,
      squash: p.squash ? 1 : 0,
      should_remove_source_branch: p.removeSource ? 1 : 0,
      merge_when_pipeline_succeeds: 0,
      merge_error: null,
      merge_status: 'can_be_merged',
      updated_at: now,
    });
    await setInternalRef(dir, mergeRef(mr), null);
    if (!merged) return (await findMergeRequestById(c.db, mr.id)) ?? mr;
    await recordEvent(c, { action: 'merged', authorId: actor.user.id, projectId: project.id, target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title } });
    if (p.removeSource) await removeSourceBranch(c, actor, merged, head);
    return merged;
  }
  throw apiError('Branch cannot be merged', 406);
}

/** Deletes the source branch after a merge, as its user, if it still points where it was merged (a refusal leaves it). */
async function removeSourceBranch(c: Container, actor: Actor, mr: MergeRequestRow, mergedHead: string): Promise<void> {
  const dir = repositoryDir(c, mr.source_project_id);
  if ((await resolveRevision(dir, `refs/heads/${mr.source_branch}`)) !== mergedHead) return;
  try {
    await deleteBranch(c, actor, mr.source_project_id, mr.source_branch, null);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
  }
}

/**
 * PUT …/merge. The reference's order: 401 for a user who may not merge into the target branch,
 * 405 when the request is not in a mergeable state (closed, merged, draft, pipeline required and
 * not succeeded — unless merging when it succeeds), 406 when git cannot merge it, 409 for a
 * stale `sha`. With merge_when_pipeline_succeeds and a running head pipeline the merge waits for it.
 */
export async function acceptMergeRequest(c: Container, actor: Actor, idOrPath: number | string, iid: number, input: MergeInput): Promise<MergeRequestDetail> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const { project, access } = found;
  const { mr, diff } = await refreshMergeRequest(c, found.mr);
  if (!(await canMergeRequest(c, actor, project, access, mr))) throw unauthorized();
  const pipeline = await headPipelineOf(c, mr, diff);
  const sourceExists = (await resolveRevision(repositoryDir(c, mr.source_project_id), `refs/heads/${mr.source_branch}`)) !== null;
  const waiting = input.merge_when_pipeline_succeeds === true && pipeline !== null && RUNNING.has(pipeline.status);
  const automatically = waiting && mergeableState(project, mr, diff, pipeline, sourceExists, true);
  const immediately = !waiting && mergeableState(project, mr, diff, pipeline, sourceExists, false);
  if (!automatically && !immediately) throw methodNotAllowed();
  const dir = repositoryDir(c, project.id);
  const target = await resolveRevision(dir, `refs/heads/${mr.target_branch}`);
  if (mr.merge_status !== 'can_be_merged' || !target || (await needsRebase(dir, project, target, diff!.head_commit_sha))) throw apiError('Branch cannot be merged', 406);
  if (input.sha !== undefined && input.sha !== diff!.head_commit_sha) throw apiError(`SHA does not match HEAD of source branch: ${diff!.head_commit_sha}`, 409);
  const params: MergeParams = {
    mergeMessage: input.merge_commit_message || undefined,
    squashMessage: input.squash_commit_message || undefined,
    squash: squashFor(project, input.squash, mr.squash === 1),
    removeSource: input.should_remove_source_branch ?? mr.force_remove_source_branch === 1,
  };
  let row: MergeRequestRow;
  if (automatically) {
    row = await updateMergeRequest(c.db, mr.id, {
      merge_when_pipeline_succeeds: 1,
      merge_user_id: actor.user.id,
      merge_params: JSON.stringify({ ...params, sha: diff!.head_commit_sha }),
      updated_at: nowIso(),
    });
  } else {
    row = await executeMerge(c, actor, project, mr, diff!, params);
  }
  const detail = await detailOf(c, actor, { project, access, mr: row });
  if (row.state === 'merged') await mergeRequestChanged(c, actor, detail, 'merge', {});
  return detail;
}

/** POST …/cancel_merge_when_pipeline_succeeds: 406 when nothing waits (the reference's words), 401 for those who may not merge. */
export async function cancelAutoMerge(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<MergeRequestDetail> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  if (!(await canMergeRequest(c, actor, found.project, found.access, found.mr))) throw unauthorized();
  if (found.mr.merge_when_pipeline_succeeds !== 1) throw apiError("Can't cancel the automatic merge", 406);
  const row = await updateMergeRequest(c.db, found.mr.id, { merge_when_pipeline_succeeds: 0, merge_params: null, updated_at: nowIso() });
  return detailOf(c, actor, { ...found, mr: row });
}

// ---- merge when pipeline succeeds ----

/** The job: each request waiting on this pipeline merges when it succeeded; a failed or canceled one stops the wait. */
export async function runAutoMerge(c: Container, payload: { pipelineId: number }): Promise<void> {
  const pipeline = await findPipeline(c.db, Number(payload.pipelineId));
  if (!pipeline) return;
  for (const waiting of await waitingForPipelines(c.db, pipeline.project_id)) {
    const project = await findProjectById(c.db, waiting.project_id);
    if (!project) continue;
    const { mr, diff } = await refreshMergeRequest(c, waiting);
    const head = await headPipelineOf(c, mr, diff);
    if (!head || head.id !== pipeline.id || !diff) continue;
    const params = JSON.parse(mr.merge_params ?? '{}') as MergeParams & { sha?: string };
    if (pipeline.status !== 'success' && !(pipeline.status === 'skipped' && project.allow_merge_on_skipped_pipeline === 1)) {
      await updateMergeRequest(c.db, mr.id, { merge_when_pipeline_succeeds: 0, merge_params: null, updated_at: nowIso() });
      continue;
    }
    const user = mr.merge_user_id !== null ? await findUserById(c.db, mr.merge_user_id) : undefined;
    if (!user || params.sha !== diff.head_commit_sha) continue;
    const actor = actingAs(user);
    const access = await projectAccess(c, actor, project);
    if (!(await canMergeRequest(c, actor, project, access, mr))) {
      await updateMergeRequest(c.db, mr.id, { merge_when_pipeline_succeeds: 0, merge_error: 'The user who set this request to merge may no longer merge it', updated_at: nowIso() });
      continue;
    }
    try {
      const merged = await executeMerge(c, actor, project, mr, diff, params);
      if (merged.state === 'merged') await mergeRequestChanged(c, actor, await detailOf(c, actor, { project, access, mr: merged }), 'merge', {});
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      await updateMergeRequest(c.db, mr.id, { merge_when_pipeline_succeeds: 0, merge_error: 'Branch cannot be merged', updated_at: nowIso() });
    }
  }
}

// ---- rebase, merge ref ----

/**
 * PUT …/rebase: the source branch replayed on the target (git rebase's result, written without a
 * work tree), moved by the caller as a force push through the one ref path; 403 for a caller who
 * may not push to the source branch. The reference answers 202 and rebases in the background;
 * this one has finished when it answers (rebase_in_progress reads false at once); a conflict
 * leaves the branch and sets merge_error.
 */
export async function rebaseMergeRequest(c: Container, actor: Actor, idOrPath: number | string, iid: number): Promise<{ rebase_in_progress: boolean }> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const source = found.mr.source_project_id === found.project.id ? found.project : await findProjectById(c.db, found.mr.source_project_id);
  if (!source) throw forbidden('Cannot push to source branch');
  const sourceAccess = source.id === found.project.id ? found.access : await projectAccess(c, actor, source);
  const allowed = await canPushToBranch(c, { actor, access: sourceAccess }, source, await loadProtection(c, source.id), found.mr.source_branch);
  if (!allowed) throw forbidden('Cannot push to source branch');
  if (found.mr.state !== 'opened') throw apiError('Merge request is not open', 405);
  const sourceDir = repositoryDir(c, source.id);
  const targetDir = repositoryDir(c, found.project.id);
  const ref = `refs/heads/${found.mr.source_branch}`;
  const head = await resolveRevision(sourceDir, ref);
  let onto = await resolveRevision(targetDir, `refs/heads/${found.mr.target_branch}`);
  if (!head || !onto) throw apiError('Rebase failed: the branches are gone', 409);
  if (source.id !== found.project.id) onto = await fetchRef(sourceDir, targetDir, `refs/heads/${found.mr.target_branch}`, `refs/keep-around/${onto}`);
  const rebased = onto ? await rebaseCommits(sourceDir, onto, head, personOf(actor)) : null;
  if (!rebased) {
    await updateMergeRequest(c.db, found.mr.id, { merge_error: 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.', updated_at: nowIso() });
    return { rebase_in_progress: true };
  }
  if (rebased !== head) {
    const update = { ref, oldSha: head, newSha: rebased, force: true };
    try {
      await checkRefUpdates(c, actor, source, [update], { via: 'web' });
      await moveRefs(c, actor, source, [update], () => compareAndSwapRef(sourceDir, ref, rebased, head));
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      await updateMergeRequest(c.db, found.mr.id, { merge_error: `Rebase failed: ${e.detail.kind === 'push_refused' ? e.detail.message : 'the branch could not be updated'}`, updated_at: nowIso() });
      return { rebase_in_progress: true };
    }
  }
  await updateMergeRequest(c.db, found.mr.id, { merge_error: null, updated_at: nowIso() });
  await refreshMergeRequest(c, (await findMergeRequestById(c.db, found.mr.id)) ?? found.mr);
  return { rebase_in_progress: true };
}

/** GET …/merge_ref: the commit the merge would make, kept in refs/merge-requests/:iid/merge; 400 when it cannot be made. */
export async function mergeRefOf(c: Container, actor: Actor | null, idOrPath: number | string, iid: number): Promise<{ commit_id: string }> {
  const found = await findMergeRequestFor(c, actor, idOrPath, iid);
  const { mr, diff } = await refreshMergeRequest(c, found.mr);
  const dir = repositoryDir(c, found.project.id);
  const target = await resolveRevision(dir, `refs/heads/${mr.target_branch}`);
  if (mr.state !== 'opened' || !diff || !target || mr.merge_status !== 'can_be_merged') throw apiError('Merge request is not mergeable', 400);
  const existing = await resolveRevision(dir, mergeRef(mr));
  // the same heads make the same commit (its dates are the version's), so the ref moves only when they moved
  const who: Person = { name: 'Anvil', email: 'noreply@anvil.invalid', date: diff.created_at };
  const sha = await writeMergeCommit(dir, target, diff.head_commit_sha, defaultMergeMessage(found.project, mr), who);
  if (!sha) throw apiError('Merge request is not mergeable', 400);
  if (existing !== sha) await setInternalRef(dir, mergeRef(mr), sha);
  return { commit_id: sha };
}
