// Pipelines: planned from the repository's CI file at a commit, created through the API, by
// pushes and by bridges; read, listed, retried, canceled and deleted. Status changes belong to
// state.ts; this module decides WHAT to create and who may do what.
//
// Creation follows the reference's CreatePipelineService chain: abilities (developer, and the
// protected-ref rule), the ref (a branch first, then a tag), the CI file, the plan (workflow
// rules, jobs), then the records. Through the API an unusable plan is a 400 with the reason in
// `message.base` (the reference's `save_on_errors: false`); a push saves an invalid file as a
// failed pipeline with `yaml_errors`, and creates nothing for a filtered or empty plan.
import type { Container } from '../context.js';
import type { PlanOptions } from '../../ci/config/index.js';
import type { PlanContext, PlanResult } from '../../ci/config/types.js';
import { latestJobsOfPipeline } from '../../db/repos/ci_jobs.js';
import { currentJobsOfPipelines, usersByIds, type StageJobRow } from '../../db/repos/ci_job_lists.js';
import {
  PIPELINE_ORDERS, junitArtifactsOfPipeline, pagePipelines, type JunitArtifactRow, type ListedPipeline, type PipelineFilters, type PipelineOrder,
} from '../../db/repos/ci_pipeline_lists.js';
import { deletePipelineRow, findPipeline, findProjectPipeline, pipelinesByIds, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUserById, findUserByUsername, type UserRow } from '../../db/repos/users.js';
import { listTree, readCommit } from '../../git/objects.js';
import { resolveRevision } from '../../git/repository.js';
import { diffPaths, fileAt, HEADS, TAGS } from '../../git/refs.js';
import { branchNames, tagNames } from '../../git/ref_files.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, invalidParams, recordNotFound, validation } from '../errors.js';
import { findProject } from '../projects/find.js';
import { repositoryDir } from '../repository/service.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { withMillis } from '../../shared/time.js';
import { deletePipelineBlobs } from './artifacts.js';
import { cancelRedundantPipelines } from './auto_cancel.js';
import { overRateLimit, settingRule } from '../shared/rate_limit.js';
import {
  canReadPipelineVariables, canUpdateRef, ciAccess, requireCiWrite, type CiAccess, requirePipelineDelete, requirePipelineList, requirePipelineRead,
  requireCiRead,
} from './policy.js';
import { cancelPipeline, createPipelineRecords, retryPipeline, type PipelineVariableInput } from './state.js';
import { buildTestReport, buildTestReportSummary, type TestReport, type TestReportSummary } from './test_reports.js';
import {
  DEFAULT_CI_FILE, FALLBACK_CI_FILE, configuredCiPath, pipelinePredefined, pipelineVariables, settingsVariables, type PipelineVariable,
} from './variables.js';

/**
 * The CI configuration parser (its YAML library included), loaded when a pipeline is first
 * planned rather than at start-up, which then compiles less code.
 */
export const ciConfig = () => import('../../ci/config/index.js');

export const PIPELINE_SCOPES = ['running', 'pending', 'finished', 'branches', 'tags'] as const;
export const PIPELINE_STATUSES = [
  'created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled',
] as const;
export const PIPELINE_SOURCES = [
  'push', 'web', 'trigger', 'schedule', 'api', 'external', 'pipeline', 'chat', 'webide', 'merge_request_event',
  'external_pull_request_event', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation',
] as const;
export { PIPELINE_ORDERS };

const FINISHED: string[] = ['success', 'failed', 'canceled', 'skipped'];

/** The reference's CreatePipelineService errors: 400 with the reason in message.base. */
export const pipelineError = (message: string) => validation({ base: [message] });

export const MESSAGES = {
  refNotFound: 'Reference not found',
  noPermission: 'Insufficient permissions to create a new pipeline',
  missingFile: 'Missing CI config file',
  filtered: 'Pipeline filtered out by workflow rules.',
  empty: 'No stages / jobs for this pipeline.',
  protectedRef: (ref: string) => `Insufficient permissions for protected ref '${ref}'`,
  rateLimited: 'Too many pipelines created in the last minute. Try again later.',
} as const;

/** A user as the actor of work done on their behalf (pushes, bridges): their own rights, unscoped. */

// ---- refs, files, commits ----

export interface ResolvedRef {
  ref: string;
  tag: boolean;
  sha: string;
}

const REF_NAME_RE = /^[^-\s~^:?*[\\][^\s~^:?*[\\]*$/;

/** A branch (first) or tag by name (or a full refs/heads/…, refs/tags/… name); null when neither exists. */
export async function resolveRef(c: Container, project: ProjectRow, name: string): Promise<ResolvedRef | null> {
  const dir = repositoryDir(c, project.id);
  const candidates: { full: string; ref: string; tag: boolean }[] = [];
  if (name.startsWith(HEADS)) candidates.push({ full: name, ref: name.slice(HEADS.length), tag: false });
  else if (name.startsWith(TAGS)) candidates.push({ full: name, ref: name.slice(TAGS.length), tag: true });
  else candidates.push({ full: HEADS + name, ref: name, tag: false }, { full: TAGS + name, ref: name, tag: true });
  for (const cand of candidates) {
    if (!REF_NAME_RE.test(cand.ref) || cand.ref.includes('..')) continue;
    const sha = await resolveRevision(dir, cand.full);
    if (sha) return { ref: cand.ref, tag: cand.tag, sha };
  }
  return null;
}

/** A file's text at a commit, or null. */
async function fileAtCommit(dir: string, sha: string, filePath: string): Promise<string | null> {
  const clean = filePath.replace(/^\/+/, '');
  if (!clean || clean.split('/').includes('..')) return null;
  return fileAt(dir, sha, clean);
}

/** The CI file at the commit: the configured path, else `.service-ci.yml`, else `.gitlab-ci.yml`. */
export async function findCiFile(c: Container, project: ProjectRow, sha: string): Promise<{ path: string; text: string } | null> {
  const dir = repositoryDir(c, project.id);
  const configured = await configuredCiPath(c, project);
  const paths = configured ? [configured] : [DEFAULT_CI_FILE, FALLBACK_CI_FILE];
  for (const p of paths) {
    const text = await fileAtCommit(dir, sha, p);
    if (text !== null) return { path: p, text };
  }
  return null;
}

/** True when the commit has a CI file (push pipelines are made only then). */
export const hasCiFile = async (c: Container, project: ProjectRow, sha: string): Promise<boolean> => (await findCiFile(c, project, sha)) !== null;

/** Paths changed between two commits; null when unknown (a new ref, or an unreadable range). */
export async function changedPathsBetween(c: Container, project: ProjectRow, before: string, after: string): Promise<string[] | null> {
  if (/^0+$/.test(before)) return null;
  return diffPaths(repositoryDir(c, project.id), before, after);
}


// ---- planning and creation ----

export interface PlanRequest {
  project: ProjectRow;
  ref: ResolvedRef;
  beforeSha: string;
  source: string;
  user: UserRow | null;
  variables: PipelineVariableInput[];
  changedPaths: string[] | null;
  parentPipelineId?: number | null;
  parentJobId?: number | null;
  pipelineScheduleId?: number | null;
  /** The configuration text to plan instead of the repository's CI file (child pipelines). */
  config?: { path: string; text: string };
  /** An invalid file still makes a failed pipeline with yaml_errors (pushes, bridges); else it is refused. */
  saveOnErrors: boolean;
  /** Refuse a usable plan with this reason instead of saving it (invalid variables fail when saved, last). */
  refuseOnSave?: string | null;
}

interface CommitSeed {
  message: string;
  authorName: string;
  authorEmail: string;
  createdAt: string;
}

export type PlanOutcome = { kind: 'created'; pipeline: PipelineRow } | { kind: 'refused'; message: string };

/**
 * The plan of the CI file (or the given text) at the ref's commit, with the variables and files a
 * pipeline of this request sees: what pipeline creation uses, and CI lint's dry run and static
 * check (`opts`), so the two never disagree.
 */
export async function planAt(
  c: Container,
  req: Pick<PlanRequest, 'project' | 'ref' | 'beforeSha' | 'source' | 'user' | 'variables' | 'changedPaths'>,
  file: { path: string; text: string },
  opts?: PlanOptions,
): Promise<{ result: PlanResult; commitSeed: CommitSeed | null }> {
  const { project, ref } = req;
  const dir = repositoryDir(c, project.id);
  const commit = await readCommit(dir, ref.sha);
  const commitSeed = commit
    ? { message: commit.message, authorName: commit.authorName, authorEmail: commit.authorEmail, createdAt: withMillis(commit.committedDate) }
    : null;
  const predefined = await pipelinePredefined(c, project, {
    source: req.source,
    ref: ref.ref,
    tag: ref.tag,
    sha: ref.sha,
    before_sha: req.beforeSha,
    commit_message: commitSeed?.message ?? null,
    commit_author_name: commitSeed?.authorName ?? null,
    commit_author_email: commitSeed?.authorEmail ?? null,
    commit_created_at: commitSeed?.createdAt ?? null,
    user_id: req.user?.id ?? null,
    configPath: file.path,
  });
  // Rules see the CI/CD variables (those of every environment) and the pipeline's own, as jobs do.
  const variables: Record<string, string> = { ...predefined };
  for (const v of await settingsVariables(c, project, { refProtected: predefined.CI_COMMIT_REF_PROTECTED === 'true', environment: null })) {
    variables[v.key] = v.value;
  }
  for (const v of req.variables) variables[v.key] = v.value;
  let files: string[] | null = null;
  const ctx: PlanContext = {
    variables,
    ref: ref.ref,
    tag: ref.tag,
    source: req.source,
    changedPaths: req.changedPaths,
    readFile: (p) => fileAtCommit(dir, ref.sha, p),
    listFiles: async () => {
      files ??= ((await listTree(dir, ref.sha, '', true)) ?? []).filter((e) => e.type === 'blob').map((e) => e.path);
      return files;
    },
    changedSince: async (rev) => {
      // A ref git would refuse (a leading '-', a NUL) names nothing: resolveRevision answers null.
      const base = await resolveRevision(dir, rev);
      return base === null ? null : diffPaths(dir, base, ref.sha);
    },
  };
  let result: PlanResult;
  try {
    result = await (await ciConfig()).planPipeline(file.text, ctx, opts);
  } catch (err) {
    c.log.error({ err, projectId: project.id, sha: ref.sha }, 'CI configuration could not be planned');
    result = { kind: 'invalid', errors: ['Undefined error'] };
  }
  return { result, commitSeed };
}

/** Plans a pipeline at the ref's commit and, when the plan allows, creates its records. */
export async function planAndCreate(c: Container, req: PlanRequest): Promise<PlanOutcome> {
  const { project, ref } = req;
  // pipeline_limit_per_project_user_sha: pipelines a minute per project, user and commit
  // (child pipelines apart, which share their parent's), refused as the reference's chain does.
  if (
    !req.parentPipelineId &&
    (await overRateLimit(c, await settingRule(c, 'pipeline_limit_per_project_user_sha'), `project:${project.id}:user:${req.user?.id ?? 0}:sha:${ref.sha}`))
  ) {
    return { kind: 'refused', message: MESSAGES.rateLimited };
  }
  const file = req.config ?? (await findCiFile(c, project, ref.sha));
  if (!file) return { kind: 'refused', message: MESSAGES.missingFile };
  const { result, commitSeed } = await planAt(c, req, file);
  const seed = {
    project,
    ref: ref.ref,
    sha: ref.sha,
    beforeSha: req.beforeSha,
    tag: ref.tag,
    source: req.source,
    userId: req.user?.id ?? null,
    commit: commitSeed,
    variables: req.variables,
    parentPipelineId: req.parentPipelineId ?? null,
    parentJobId: req.parentJobId ?? null,
    pipelineScheduleId: req.pipelineScheduleId ?? null,
  };
  if (req.refuseOnSave && (result.kind === 'plan' || (result.kind === 'invalid' && req.saveOnErrors))) {
    return { kind: 'refused', message: req.refuseOnSave };
  }
  switch (result.kind) {
    case 'plan': {
      const pipeline = await createPipelineRecords(c, { ...seed, plan: result.plan });
      // Only a pipeline created from a usable plan cancels older ones (the reference's chain
      // stops before that step for an invalid file or a `[ci skip]` push).
      await cancelRedundantPipelines(c, pipeline);
      return { kind: 'created', pipeline };
    }
    case 'invalid': {
      // The reference keeps the first error as the pipeline's yaml_errors.
      const message = result.errors[0] ?? 'Invalid configuration';
      if (!req.saveOnErrors) return { kind: 'refused', message };
      return { kind: 'created', pipeline: await createPipelineRecords(c, { ...seed, plan: null, yamlErrors: message }) };
    }
    case 'filtered':
      return { kind: 'refused', message: MESSAGES.filtered };
    case 'empty':
      return { kind: 'refused', message: MESSAGES.empty };
  }
}

// ---- API variables ----

const VARIABLE_TYPES = ['env_var', 'file'];
const KEY_RE = /^[a-zA-Z0-9_]+$/;

/**
 * The `variables` parameter: an array of {key, value, variable_type}. A wrong variable_type is
 * a parameter error (Grape's words); a missing or malformed key fails like the reference's
 * model validation when the pipeline is saved.
 */
export function parseVariables(raw: unknown): { variables: PipelineVariableInput[]; invalid: string | null } {
  if (raw === undefined || raw === null || raw === '') return { variables: [], invalid: null };
  let list: unknown[];
  if (Array.isArray(raw)) list = raw;
  else if (typeof raw === 'object' && Object.keys(raw).every((k) => /^\d+$/.test(k))) {
    list = Object.keys(raw).sort((a, b) => Number(a) - Number(b)).map((k) => (raw as Record<string, unknown>)[k]);
  } else throw invalidParams('variables is invalid');
  const out: PipelineVariableInput[] = [];
  let invalid: string | null = null;
  list.forEach((item, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw invalidParams(`variables[${i}] is invalid`);
    const v = item as Record<string, unknown>;
    const type = v.variable_type ?? 'env_var';
    if (typeof type !== 'string' || !VARIABLE_TYPES.includes(type)) throw invalidParams(`variables[${i}][variable_type] does not have a valid value`);
    for (const f of ['key', 'value'] as const) {
      if (v[f] !== undefined && v[f] !== null && typeof v[f] !== 'string' && typeof v[f] !== 'number' && typeof v[f] !== 'boolean') {
        throw invalidParams(`variables[${i}][${f}] is invalid`);
      }
    }
    const key = v.key === undefined || v.key === null ? '' : String(v.key);
    if (invalid === null) {
      if (key === '') invalid = "Variables key can't be blank";
      else if (key.length > 255) invalid = 'Variables key is too long (maximum is 255 characters)';
      else if (!KEY_RE.test(key)) invalid = "Variables key can contain only letters, digits and '_'.";
    }
    out.push({ key, value: v.value === undefined || v.value === null ? '' : String(v.value), variable_type: type as 'env_var' | 'file' });
  });
  if (invalid === null) {
    const seen = new Set<string>();
    const dups = [...new Set(out.filter((v) => (seen.has(v.key) ? true : (seen.add(v.key), false))).map((v) => v.key))];
    if (dups.length) invalid = `Variables have duplicate values (${dups.join(', ')})`;
  }
  return { variables: out, invalid };
}

// ---- the API's operations ----

export interface CreatePipelineInput {
  ref: string;
  variables?: unknown;
}

async function pipelineIn(c: Container, project: ProjectRow, pipelineId: number): Promise<PipelineRow> {
  const p = await findProjectPipeline(c.db, project.id, pipelineId);
  if (!p) throw recordNotFound();
  return p;
}

export interface PipelineView {
  project: ProjectRow;
  pipeline: PipelineRow;
  user: UserRow | null;
}

/** A pipeline of a list: the columns its PipelineBasic shows. */
export interface PipelineListItem {
  project: ProjectRow;
  pipeline: ListedPipeline;
}

async function viewOf(c: Container, project: ProjectRow, pipeline: PipelineRow): Promise<PipelineView> {
  const user = pipeline.user_id !== null ? ((await findUserById(c.db, pipeline.user_id)) ?? null) : null;
  return { project, pipeline, user };
}

/** POST /projects/:id/pipeline: source `api`, or `web` when the web interface asks (a browser session), as the reference's pipeline form. */
export async function createPipeline(c: Container, actor: Actor, idOrPath: number | string, input: CreatePipelineInput): Promise<PipelineView> {
  const found = await findProject(c, actor, idOrPath);
  const access = await requireCiWrite(c, actor, found);
  return createRequestedPipeline(c, actor, found.row, access, {
    ref: input.ref,
    source: actor.via === 'session' ? 'web' : 'api',
    ...parseVariables(input.variables),
  });
}

/**
 * The reference's CreatePipelineService chain for a pipeline asked for (API, trigger): the
 * actor's right to create it, the protected-ref rule, the ref, the file, the plan; each refusal
 * a 400 with the reason in message.base.
 */
export async function createRequestedPipeline(
  c: Container,
  actor: Actor,
  project: ProjectRow,
  access: CiAccess,
  req: { ref: string; source: string; variables: PipelineVariableInput[]; invalid: string | null },
): Promise<PipelineView> {
  if (!access.update) throw pipelineError(MESSAGES.noPermission);
  const resolved = await resolveRef(c, project, req.ref);
  // The protected-ref rule comes before the ref's existence, as in the reference's chain.
  if (resolved && !(await canUpdateRef(c, actor, project, access, resolved.ref, resolved.tag))) {
    throw pipelineError(MESSAGES.protectedRef(resolved.ref));
  }
  if (!resolved) throw pipelineError(MESSAGES.refNotFound);
  const outcome = await planAndCreate(c, {
    project,
    ref: resolved,
    beforeSha: '0'.repeat(40),
    source: req.source,
    user: actor.user,
    variables: req.variables,
    changedPaths: null,
    saveOnErrors: false,
    // Variables are validated when the pipeline is saved: a missing file or an unusable plan wins.
    refuseOnSave: req.invalid ? `Failed to persist the pipeline: Validation failed: ${req.invalid}` : null,
  });
  if (outcome.kind === 'refused') throw pipelineError(outcome.message);
  return viewOf(c, project, (await findPipeline(c.db, outcome.pipeline.id)) ?? outcome.pipeline);
}

/** GET /projects/:id/pipelines/:pipeline_id (child pipelines too). */
export async function getPipeline(c: Container, actor: Actor | null, idOrPath: number | string, pipelineId: number): Promise<PipelineView> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  await requirePipelineRead(c, actor, found);
  return viewOf(c, project, await pipelineIn(c, project, pipelineId));
}

export interface ListPipelinesInput {
  scope?: (typeof PIPELINE_SCOPES)[number];
  status?: string;
  source?: string;
  ref?: string;
  sha?: string;
  yaml_errors?: boolean;
  username?: string;
  updated_after?: string;
  updated_before?: string;
  order_by?: PipelineOrder;
  sort?: 'asc' | 'desc';
  /** Only the pipelines of this schedule (GET …/pipeline_schedules/:id/pipelines). */
  pipeline_schedule_id?: number;
}

/** An ISO 8601 datetime parameter as a stored timestamp (UTC with ms); 400 when unreadable. */
function timeParam(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const ms = Date.parse(v);
  if (!/^\d{4}-\d\d-\d\d/.test(v) || Number.isNaN(ms)) throw invalidParams(`${name} is invalid`);
  return new Date(ms).toISOString();
}

/** GET /projects/:id/pipelines: list form, child pipelines left out. */
export async function listPipelines(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  input: ListPipelinesInput,
  page: PageRequest,
): Promise<PageResult<PipelineListItem>> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  await requirePipelineList(c, actor, found);
  const f: PipelineFilters = { orderBy: input.order_by ?? 'id', sort: input.sort ?? 'desc' };
  const statuses: string[][] = [];
  if (input.scope === 'running' || input.scope === 'pending') statuses.push([input.scope]);
  if (input.scope === 'finished') statuses.push(FINISHED);
  if (input.status !== undefined) statuses.push([input.status]);
  if (statuses.length) f.statuses = statuses.reduce((a, b) => a.filter((s) => b.includes(s)));
  if (input.scope === 'branches') f.latestOfRefs = branchNames(repositoryDir(c, project.id));
  if (input.scope === 'tags') f.latestOfRefs = tagNames(repositoryDir(c, project.id));
  if (input.source !== undefined) f.source = input.source;
  if (input.ref !== undefined) f.ref = input.ref;
  if (input.sha !== undefined) f.sha = input.sha;
  if (input.pipeline_schedule_id !== undefined) f.scheduleId = input.pipeline_schedule_id;
  if (input.yaml_errors !== undefined) f.yamlErrors = input.yaml_errors;
  if (input.username !== undefined) f.userId = (await findUserByUsername(c.db, input.username))?.id ?? null;
  f.updatedAfter = timeParam('updated_after', input.updated_after);
  f.updatedBefore = timeParam('updated_before', input.updated_before);
  const rows = await pagePipelines(c.db, project.id, f, page);
  return { ...rows, items: rows.items.map((pipeline) => ({ project, pipeline })) };
}

/** A pipeline of the web's pipelines list: who ran it, and its current jobs and bridges (its stage icons). */
export interface PipelineRowView {
  pipeline: PipelineRow;
  user: UserRow | null;
  jobs: StageJobRow[];
}

/**
 * Some pipelines of a project (ids of another project's are left out) with their users and current
 * jobs and bridges, in three queries however many they are and however many jobs they have: a page
 * of the web's pipelines list reads its rows at once. Read as the pipelines list is.
 */
export async function pipelineRowViews(c: Container, actor: Actor | null, idOrPath: number | string, ids: number[]): Promise<PipelineRowView[]> {
  const found = await findProject(c, actor, idOrPath);
  await requirePipelineList(c, actor, found);
  const pipelines = (await pipelinesByIds(c.db, ids)).filter((p) => p.project_id === found.row.id);
  const mine = pipelines.map((p) => p.id);
  const [users, jobs] = await Promise.all([
    usersByIds(c.db, [...new Set(pipelines.flatMap((p) => (p.user_id === null ? [] : [p.user_id])))]),
    currentJobsOfPipelines(c.db, found.row.id, mine),
  ]);
  const userById = new Map(users.map((u) => [u.id, u]));
  return pipelines.map((pipeline) => ({
    pipeline,
    user: pipeline.user_id === null ? null : (userById.get(pipeline.user_id) ?? null),
    jobs: jobs.filter((j) => j.pipeline_id === pipeline.id),
  }));
}

/** GET …/variables: read_pipeline_variable (maintainers, or the developer who triggered the pipeline). */
export async function listPipelineVariables(c: Container, actor: Actor | null, idOrPath: number | string, pipelineId: number): Promise<PipelineVariable[]> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  const access = await requirePipelineRead(c, actor, found);
  const pipeline = await pipelineIn(c, project, pipelineId);
  if (!(await canReadPipelineVariables(c, actor, project, access, pipeline))) throw forbidden();
  return pipelineVariables(c, pipeline.id);
}

/**
 * Whether the actor may act on the pipeline's jobs (retry, cancel, play): developer access and the
 * ref rule (a protected branch needs push or merge rights), as the API's actions check. Pages ask
 * it before offering a button the API would refuse.
 */
export async function mayUpdatePipeline(c: Container, actor: Actor, idOrPath: number | string, pipelineId: number): Promise<boolean> {
  const found = await findProject(c, actor, idOrPath);
  const access = await ciAccess(c, actor, found);
  if (!access.update) return false;
  const pipeline = await pipelineIn(c, found.row, pipelineId);
  return canUpdateRef(c, actor, found.row, access, pipeline.ref, pipeline.tag === 1);
}

/** POST …/retry (201): failed and canceled jobs are retried as new jobs. */
export async function retryPipelineAction(c: Container, actor: Actor, idOrPath: number | string, pipelineId: number): Promise<PipelineView> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  const access = await requireCiWrite(c, actor, found);
  const pipeline = await pipelineIn(c, project, pipelineId);
  if (!(await canUpdateRef(c, actor, project, access, pipeline.ref, pipeline.tag === 1))) throw forbidden();
  const after = (await retryPipeline(c, actor, pipeline.id)) ?? pipeline;
  return viewOf(c, project, after);
}

/** POST …/cancel (200): every unfinished job is canceled. */
export async function cancelPipelineAction(c: Container, actor: Actor, idOrPath: number | string, pipelineId: number): Promise<PipelineView> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  const access = await requireCiWrite(c, actor, found);
  const pipeline = await pipelineIn(c, project, pipelineId);
  if (!(await canUpdateRef(c, actor, project, access, pipeline.ref, pipeline.tag === 1))) throw forbidden();
  const after = (await cancelPipeline(c, pipeline.id)) ?? pipeline;
  return viewOf(c, project, after);
}

/**
 * DELETE (204): the pipeline, its jobs, variables, logs and artifacts (blobs first, then the rows:
 * jobs cascade). Child pipelines stay (their parent link is cleared).
 */
export async function deletePipeline(c: Container, actor: Actor, idOrPath: number | string, pipelineId: number): Promise<void> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  await requirePipelineDelete(c, actor, found);
  const pipeline = await pipelineIn(c, project, pipelineId);
  // Running jobs stop first, so no runner writes into a deleted job.
  const active = (await latestJobsOfPipeline(c.db, pipeline.id)).some((j) => j.status === 'running' || j.status === 'pending');
  if (active) await cancelPipeline(c, pipeline.id);
  await deletePipelineBlobs(c, pipeline.id);
  await deletePipelineRow(c.db, pipeline.id);
}

/** GET …/test_report: the junit reports of the pipeline's current jobs. */
export async function pipelineTestReport(c: Container, actor: Actor | null, idOrPath: number | string, pipelineId: number): Promise<TestReport> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  await requireCiRead(c, actor, found);
  const pipeline = await pipelineIn(c, project, pipelineId);
  return buildTestReport(c, await junitArtifactsOfPipeline(c.db, pipeline.id));
}

/** GET …/test_report_summary. */
export async function pipelineTestReportSummary(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  pipelineId: number,
): Promise<TestReportSummary> {
  const found = await findProject(c, actor, idOrPath);
  const project = found.row;
  await requireCiRead(c, actor, found);
  const pipeline = await pipelineIn(c, project, pipelineId);
  return buildTestReportSummary(c, await junitArtifactsOfPipeline(c.db, pipeline.id));
}

export type { JunitArtifactRow };
