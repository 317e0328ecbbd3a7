// CI lint: POST /projects/:id/ci/lint (the given text) and GET /projects/:id/ci/lint (the
// project's CI file at a commit). Both answer with the planner that pipelines use (planAt), so a
// lint result and a real pipeline never disagree:
// - the static check plans every job of the file as written (no rules evaluated) at the project's
//   head commit and default branch, reporting each job's only/except and needs;
// - the dry run (`dry_run`) is pipeline creation without the records: the same abilities,
//   protected-ref rule, ref lookup and plan (source `push`, as the reference simulates it), its
//   refusal the pipeline's error, and the jobs that pipeline would have.
import { stringify } from 'yaml';
import type { PolicySpec } from '../../ci/config/entries.js';
import type { PlanOptions } from '../../ci/config/index.js';
import type { PlannedJob, PlanResult } from '../../ci/config/types.js';
import type { YamlMap } from '../../ci/config/yaml.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { isEmptyRepository } from '../../git/objects.js';
import { resolveRevision } from '../../git/repository.js';
import type { Actor } from '../auth/actor.js';
import type { Container } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { findProject } from '../projects/find.js';
import { canReadCode } from '../projects/policy.js';
import { repositoryDir } from '../repository/service.js';
import { MESSAGES, findCiFile, planAt, resolveRef, type ResolvedRef } from './pipelines.js';
import { canUpdateRef, ciAccess, requireCiWrite, type CiAccess } from './policy.js';
import { DEFAULT_CI_FILE, configuredCiPath } from './variables.js';

export interface LintInclude {
  type: 'local';
  location: string;
  blob: string;
  raw: string;
  extra: Record<string, never>;
  context_project: string;
  context_sha: string;
}

export interface LintJob {
  name: string;
  stage: string;
  before_script: string[];
  script: string[];
  after_script: string[];
  tag_list: string[];
  /** Static check only. */
  only?: PolicySpec | null;
  except?: PolicySpec | null;
  needs?: { name: string; artifacts: boolean; optional: boolean }[] | null;
  environment: string | null;
  when: string;
  allow_failure: boolean;
}

export interface LintResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  merged_yaml: string | null;
  includes: LintInclude[] | null;
  jobs: LintJob[];
}

const NO_SHA = '0'.repeat(40);

/** The jobs in stage order, then file order (as the reference lists them). */
const byStage = (jobs: PlannedJob[]): PlannedJob[] => [...jobs].sort((a, b) => a.stageIdx - b.stageIdx);

function jobOf(j: PlannedJob): LintJob {
  return {
    name: j.name,
    stage: j.stage,
    before_script: j.beforeScript,
    script: j.script,
    after_script: j.afterScript,
    tag_list: j.type === 'bridge' ? [] : j.tags,
    environment: j.environment?.name ?? null,
    when: j.when,
    allow_failure: j.allowFailure,
  };
}

/** What the planner reports on the way: the merged configuration, the files included, each job's only/except. */
function observer(project: ProjectRow, sha: string, c: Container) {
  const seen = {
    merged: null as string | null,
    includes: [] as LintInclude[],
    policies: new Map<string, { only: PolicySpec | null; except: PolicySpec | null }>(),
  };
  const web = `${c.config.externalUrl}/${project.full_path}`;
  const opts: PlanOptions = {
    onMerged: (config: YamlMap) => {
      seen.merged = `---\n${stringify(config)}`;
    },
    onInclude: (path) =>
      seen.includes.push({
        type: 'local',
        location: path,
        blob: `${web}/-/blob/${sha}/${path}`,
        raw: `${web}/-/raw/${sha}/${path}`,
        extra: {},
        context_project: project.full_path,
        context_sha: sha,
      }),
    onPolicies: (job, only, except) => seen.policies.set(job, { only, except }),
  };
  return { seen, opts };
}

function resultOf(seen: ReturnType<typeof observer>['seen'], errors: string[], jobs: LintJob[]): LintResult {
  return {
    valid: errors.length === 0,
    errors,
    warnings: [],
    merged_yaml: seen.merged,
    includes: seen.merged === null ? null : seen.includes,
    jobs,
  };
}

interface LintRequest {
  project: ProjectRow;
  access: CiAccess;
  content: string;
  /** The commit the content belongs to (its local includes); NO_SHA for an empty repository. */
  sha: string;
  dryRun: boolean;
  /** The dry run's branch or tag; null = the project's default branch. */
  ref: string | null;
}

/** The static check: every job as written, at the content's commit and the default branch. */
async function staticCheck(c: Container, actor: Actor | null, req: LintRequest): Promise<LintResult> {
  const { project } = req;
  const { seen, opts } = observer(project, req.sha, c);
  const ref: ResolvedRef = { ref: project.default_branch ?? 'main', tag: false, sha: req.sha };
  const { result } = await planAt(
    c,
    { project, ref, beforeSha: NO_SHA, source: 'push', user: actor?.user ?? null, variables: [], changedPaths: null },
    { path: (await configuredCiPath(c, project)) ?? DEFAULT_CI_FILE, text: req.content },
    { ...opts, allJobs: true },
  );
  if (result.kind !== 'plan') return resultOf(seen, errorsOf(result), []);
  const jobs = byStage(result.plan.jobs).map((j) => {
    const p = seen.policies.get(j.name) ?? { only: null, except: null };
    const base = jobOf(j);
    return {
      name: base.name,
      stage: base.stage,
      before_script: base.before_script,
      script: base.script,
      after_script: base.after_script,
      tag_list: base.tag_list,
      only: p.only,
      except: p.except,
      environment: base.environment,
      when: base.when,
      allow_failure: base.allow_failure,
      needs: j.needs === null ? null : j.needs.map((n) => ({ name: n.job, artifacts: n.artifacts, optional: n.optional })),
    };
  });
  return resultOf(seen, [], jobs);
}

function errorsOf(result: Exclude<PlanResult, { kind: 'plan' }>): string[] {
  if (result.kind === 'invalid') return result.errors;
  return [result.kind === 'filtered' ? MESSAGES.filtered : MESSAGES.empty];
}

/** The dry run: pipeline creation's chain and plan (source push), nothing saved. */
async function dryRun(c: Container, actor: Actor | null, req: LintRequest): Promise<LintResult> {
  const { project, access } = req;
  const refName = req.ref ?? project.default_branch ?? 'main';
  const { seen, opts } = observer(project, req.sha, c);
  const refused = (message: string) => resultOf(seen, [message], []);
  if (!actor || !access.update) return refused(MESSAGES.noPermission);
  const resolved = await resolveRef(c, project, refName);
  if (resolved && !(await canUpdateRef(c, actor, project, access, resolved.ref, resolved.tag))) return refused(MESSAGES.protectedRef(resolved.ref));
  if (!resolved) return refused(MESSAGES.refNotFound);
  const file = await findCiFile(c, project, resolved.sha);
  const { result } = await planAt(
    c,
    { project, ref: resolved, beforeSha: NO_SHA, source: 'push', user: actor.user, variables: [], changedPaths: null },
    { path: file?.path ?? (await configuredCiPath(c, project)) ?? DEFAULT_CI_FILE, text: req.content },
    opts,
  );
  if (result.kind !== 'plan') {
    // A pipeline keeps the first error (its yaml_errors, or the API's message.base).
    const errors = errorsOf(result);
    return refused(errors[0] ?? 'Invalid configuration');
  }
  return resultOf(seen, [], byStage(result.plan.jobs).map(jobOf));
}

const lint = (c: Container, actor: Actor | null, req: LintRequest) => (req.dryRun ? dryRun(c, actor, req) : staticCheck(c, actor, req));

async function headSha(c: Container, project: ProjectRow): Promise<string> {
  const dir = repositoryDir(c, project.id);
  if (await isEmptyRepository(dir)) return NO_SHA;
  return (await resolveRevision(dir, 'HEAD')) ?? NO_SHA;
}

export interface LintContentInput {
  content: string;
  dry_run?: boolean;
  ref?: string;
}

/** POST /projects/:id/ci/lint: the given text, for those who may create pipelines (developers+). */
export async function lintContent(c: Container, actor: Actor | null, idOrPath: number | string, input: LintContentInput): Promise<LintResult> {
  const found = await findProject(c, actor, idOrPath);
  const access = await requireCiWrite(c, actor, found);
  const project = found.row;
  return lint(c, actor, { project, access, content: input.content, sha: await headSha(c, project), dryRun: input.dry_run ?? false, ref: input.ref ?? null });
}

export interface LintProjectInput {
  content_ref?: string;
  sha?: string;
  dry_run?: boolean;
  dry_run_ref?: string;
  ref?: string;
}

/** GET /projects/:id/ci/lint: the project's CI file at a commit (default: the default branch's head), for those who may read its code. */
export async function lintProjectFile(c: Container, actor: Actor | null, idOrPath: number | string, input: LintProjectInput): Promise<LintResult> {
  const found = await findProject(c, actor, idOrPath);
  if (!canReadCode(found.access)) throw forbidden();
  const project = found.row;
  const dir = repositoryDir(c, project.id);
  if (await isEmptyRepository(dir)) throw notFound('Repository');
  const rev = input.content_ref ?? input.sha ?? 'HEAD';
  const sha = await resolveRevision(dir, rev);
  if (!sha) throw notFound('Commit');
  const file = await findCiFile(c, project, sha);
  return lint(c, actor, {
    project,
    access: await ciAccess(c, actor, found),
    content: file?.text ?? '',
    sha,
    dryRun: input.dry_run ?? false,
    ref: input.dry_run_ref ?? input.ref ?? null,
  });
}
