// Predefined CI variables, as the reference defines them (doc/ci/variables/predefined_variables.md),
// for planning a pipeline (its `rules:if`, `only:variables`) and for running a job.
//
// Vendor words are neutral here as everywhere in Anvil: the reference's GITLAB_CI and
// GITLAB_USER_ID/LOGIN/EMAIL/NAME are SERVICE_CI and SERVICE_USER_ID/LOGIN/EMAIL/NAME.
// Variables only a runner knows (CI_JOB_TOKEN, CI_PROJECT_DIR, CI_BUILDS_DIR, CI_JOB_STATUS,
// CI_REPOSITORY_URL, CI_RUNNER_*) are added by the runner, never here.
import type { Container } from '../context.js';
import { jobVariableRows, type JobRow } from '../../db/repos/ci_jobs.js';
import { variablesOfOwners } from '../../db/repos/ci_variables.js';
import { findNamespaceById } from '../../db/repos/namespaces.js';
import { pipelineVariableRows, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { findUserById, findUsersByIds, type UserRow } from '../../db/repos/users.js';
import { findDiff, findMergeRequest, usersOf } from '../../db/repos/merge_requests.js';
import { findProjectById } from '../../db/repos/projects.js';
import { REFERENCE_API_LEVEL } from '../../version.js';
import { selfAndAncestorIds, visibilityName } from '../members/policy.js';
import { loadProtection, matchingRules } from '../protected_branches/policy.js';
import { isProtectedTag, loadTagProtection } from '../protected_tags/policy.js';
import { getSettings } from '../settings/service.js';
import { decryptSecret } from '../shared/encryption.js';

/** The CI file Anvil reads first; `.gitlab-ci.yml` (the reference's name) is the fallback. */
export const DEFAULT_CI_FILE = '.service-ci.yml';
export const FALLBACK_CI_FILE = '.gitlab-ci.yml';

/** The reference's slugify: lowercase, anything but a-z0-9 → '-', at most 63 bytes, no leading/trailing '-'. */
export function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

/** ISO 8601 without fractions (`2022-01-31T16:47:55Z`), the reference's `iso8601`. */
const iso8601 = (ts: string | null): string | null => (ts ? new Date(ts).toISOString().replace(/\.\d{3}Z$/, 'Z') : null);

export const projectUrl = (c: Container, p: ProjectRow): string => `${c.config.externalUrl}/${p.full_path}`;
export const pipelineWebUrl = (c: Container, p: ProjectRow, pipelineId: number): string => `${projectUrl(c, p)}/-/pipelines/${pipelineId}`;
export const jobWebUrl = (c: Container, p: ProjectRow, jobId: number): string => `${projectUrl(c, p)}/-/jobs/${jobId}`;

/** The CI file path the project asks for: its own ci_config_path, else the instance's default, else ours. */
export async function configuredCiPath(c: Container, p: ProjectRow): Promise<string | null> {
  if (p.ci_config_path) return p.ci_config_path;
  const fromSettings = (await getSettings(c)).default_ci_config_path;
  return typeof fromSettings === 'string' && fromSettings !== '' ? fromSettings : null;
}

/** What the pipeline variables need to know; `id`, `iid`, `created_at` are absent while planning. */
export interface PipelineFacts {
  id?: number;
  iid?: number;
  created_at?: string;
  source: string;
  ref: string;
  tag: boolean;
  sha: string;
  before_sha: string;
  commit_message: string | null;
  commit_author_name: string | null;
  commit_author_email: string | null;
  commit_created_at: string | null;
  user_id: number | null;
  /** The CI file actually read (when known). */
  configPath?: string | null;
}

/**
 * The reference's Commit#full_title (the whole first line) and #description (the rest after the
 * first line break, one trailing newline chomped; the whole message when the title is 100+ long).
 */
function titleAndDescription(message: string): { title: string; description: string } {
  const title = message.split(/[\r\n]/, 1)[0] ?? '';
  if (title.length >= 100) return { title, description: message };
  const nl = message.indexOf('\n');
  return { title, description: nl >= 0 ? message.slice(nl + 1).replace(/\r?\n$/, '') : '' };
}

function serverVariables(c: Container): Record<string, string> {
  const url = new URL(c.config.externalUrl);
  const protocol = url.protocol.replace(/:$/, '');
  const port = url.port || (protocol === 'https' ? '443' : '80');
  const [major, minor, patch] = REFERENCE_API_LEVEL.split('.');
  const base = c.config.externalUrl.replace(/\/+$/, '');
  return {
    CI_SERVER: 'yes',
    CI_SERVER_URL: base,
    CI_SERVER_HOST: url.hostname,
    CI_SERVER_PORT: port,
    CI_SERVER_PROTOCOL: protocol,
    CI_SERVER_NAME: 'Anvil',
    CI_SERVER_VERSION: REFERENCE_API_LEVEL,
    CI_SERVER_VERSION_MAJOR: major,
    CI_SERVER_VERSION_MINOR: minor,
    CI_SERVER_VERSION_PATCH: patch,
    CI_API_V4_URL: `${base}/api/v4`,
  };
}

function projectVariables(c: Container, p: ProjectRow): Record<string, string> {
  const cut = p.full_path.lastIndexOf('/');
  const namespace = cut >= 0 ? p.full_path.slice(0, cut) : '';
  return {
    CI_PROJECT_ID: String(p.id),
    CI_PROJECT_NAME: p.path,
    CI_PROJECT_TITLE: p.name,
    CI_PROJECT_PATH: p.full_path,
    CI_PROJECT_PATH_SLUG: slugify(p.full_path),
    CI_PROJECT_NAMESPACE: namespace,
    CI_PROJECT_ROOT_NAMESPACE: namespace.split('/')[0] ?? '',
    CI_PROJECT_URL: projectUrl(c, p),
    CI_PROJECT_VISIBILITY: visibilityName(p.visibility_level),
    ...(p.default_branch ? { CI_DEFAULT_BRANCH: p.default_branch } : {}),
  };
}

function userVariables(u: UserRow | undefined): Record<string, string> {
  if (!u) return {};
  return {
    SERVICE_USER_ID: String(u.id),
    SERVICE_USER_LOGIN: u.username,
    SERVICE_USER_EMAIL: u.email,
    SERVICE_USER_NAME: u.name,
  };
}

async function refProtected(c: Container, p: ProjectRow, ref: string, tag: boolean): Promise<boolean> {
  if (tag) return isProtectedTag(await loadTagProtection(c, p.id), ref);
  return matchingRules(await loadProtection(c, p.id), ref).length > 0;
}

/** The variables a pipeline's `rules`, `only:variables` and jobs see (no job-specific ones). */
export async function pipelinePredefined(c: Container, project: ProjectRow, p: PipelineFacts): Promise<Record<string, string>> {
  const message = p.commit_message ?? '';
  const { title, description } = titleAndDescription(message);
  const configPath = p.configPath ?? (await configuredCiPath(c, project)) ?? DEFAULT_CI_FILE;
  const vars: Record<string, string> = {
    CI: 'true',
    SERVICE_CI: 'true',
    ...serverVariables(c),
    ...projectVariables(c, project),
    CI_CONFIG_PATH: configPath,
    CI_PIPELINE_SOURCE: p.source,
    CI_COMMIT_SHA: p.sha,
    CI_COMMIT_SHORT_SHA: p.sha.slice(0, 8),
    CI_COMMIT_BEFORE_SHA: p.before_sha,
    CI_COMMIT_REF_NAME: p.ref,
    CI_COMMIT_REF_SLUG: slugify(p.ref),
    CI_COMMIT_REF_PROTECTED: String(await refProtected(c, project, p.ref, p.tag)),
    ...(p.tag ? { CI_COMMIT_TAG: p.ref } : MERGE_REQUEST_REF.test(p.ref) ? {} : { CI_COMMIT_BRANCH: p.ref }),
    CI_COMMIT_MESSAGE: message,
    CI_COMMIT_TITLE: title,
    CI_COMMIT_DESCRIPTION: description,
  };
  // git's strict ISO 8601 with the committer's offset (stored with the reference's milliseconds).
  if (p.commit_created_at) vars.CI_COMMIT_TIMESTAMP = p.commit_created_at.replace(/\.\d{3}(?=[Z+-])/, '');
  if (p.commit_author_name !== null) vars.CI_COMMIT_AUTHOR = `${p.commit_author_name} <${p.commit_author_email ?? ''}>`;
  if (p.id !== undefined) {
    vars.CI_PIPELINE_ID = String(p.id);
    vars.CI_PIPELINE_URL = pipelineWebUrl(c, project, p.id);
  }
  if (p.iid !== undefined) vars.CI_PIPELINE_IID = String(p.iid);
  if (p.created_at) vars.CI_PIPELINE_CREATED_AT = iso8601(p.created_at)!;
  if (p.source === 'trigger') vars.CI_PIPELINE_TRIGGERED = 'true';
  if (p.user_id !== null) Object.assign(vars, userVariables(await findUserById(c.db, p.user_id)));
  const mrRef = MERGE_REQUEST_REF.exec(p.ref);
  if (mrRef) Object.assign(vars, await mergeRequestVariables(c, project, Number(mrRef[1])));
  return vars;
}

/** A merge request pipeline's ref: the request's head ref in its target project. */
const MERGE_REQUEST_REF = /^refs\/merge-requests\/(\d+)\/head$/;

/**
 * The CI_MERGE_REQUEST_* variables of a merge request pipeline (the reference's "detached" kind:
 * the source head itself, so the *_SHA of merged results are empty); CI_COMMIT_REF_NAME names the
 * source branch. Assignees, labels and milestone appear only when the request has them.
 */
async function mergeRequestVariables(c: Container, project: ProjectRow, iid: number): Promise<Record<string, string>> {
  const mr = await findMergeRequest(c.db, project.id, iid);
  if (!mr) return {};
  const diff = mr.latest_diff_id !== null ? await findDiff(c.db, mr.id, mr.latest_diff_id) : undefined;
  const source = mr.source_project_id === project.id ? project : ((await findProjectById(c.db, mr.source_project_id)) ?? project);
  const assignees = await findUsersByIds(c.db, (await usersOf(c.db, 'merge_request_assignees', [mr.id])).map((a) => a.user_id));
  const url = (p: ProjectRow) => `${c.config.externalUrl}/${p.full_path}`;
  return {
    CI_COMMIT_REF_NAME: mr.source_branch,
    CI_COMMIT_REF_SLUG: slugify(mr.source_branch),
    CI_MERGE_REQUEST_ID: String(mr.id),
    CI_MERGE_REQUEST_IID: String(mr.iid),
    CI_MERGE_REQUEST_REF_PATH: `refs/merge-requests/${mr.iid}/head`,
    CI_MERGE_REQUEST_PROJECT_ID: String(project.id),
    CI_MERGE_REQUEST_PROJECT_PATH: project.full_path,
    CI_MERGE_REQUEST_PROJECT_URL: url(project),
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: mr.target_branch,
    CI_MERGE_REQUEST_TARGET_BRANCH_SHA: '',
    CI_MERGE_REQUEST_TARGET_BRANCH_PROTECTED: String(await refProtected(c, project, mr.target_branch, false)),
    CI_MERGE_REQUEST_SOURCE_PROJECT_ID: String(source.id),
    CI_MERGE_REQUEST_SOURCE_PROJECT_PATH: source.full_path,
    CI_MERGE_REQUEST_SOURCE_PROJECT_URL: url(source),
    CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: mr.source_branch,
    CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: '',
    CI_MERGE_REQUEST_TITLE: mr.title,
    ...(assignees.length ? { CI_MERGE_REQUEST_ASSIGNEES: assignees.map((u) => u.username).join(',') } : {}),
    ...(diff ? { CI_MERGE_REQUEST_DIFF_ID: String(diff.id), CI_MERGE_REQUEST_DIFF_BASE_SHA: diff.base_commit_sha ?? '' } : {}),
    CI_MERGE_REQUEST_EVENT_TYPE: 'detached',
  };
}

/** A parallel instance's index and total: from the planner's job variables, else from `test 2/5`. */
function parallelOf(name: string, options: Record<string, unknown>): { index: number; total: number } | null {
  const vars = (options.variables ?? {}) as Record<string, unknown>;
  if (/^\d+$/.test(String(vars.CI_NODE_INDEX)) && /^\d+$/.test(String(vars.CI_NODE_TOTAL))) {
    return { index: Number(vars.CI_NODE_INDEX), total: Number(vars.CI_NODE_TOTAL) };
  }
  const m = /^.+ (\d+)\/(\d+)$/.exec(name);
  return m ? { index: Number(m[1]), total: Number(m[2]) } : null;
}

function jobVariables(c: Container, project: ProjectRow, job: JobRow): Record<string, string> {
  let options: Record<string, unknown> = {};
  try {
    options = JSON.parse(job.options) as Record<string, unknown>;
  } catch {
    options = {};
  }
  const vars: Record<string, string> = {
    CI_JOB_ID: String(job.id),
    CI_JOB_NAME: job.name,
    CI_JOB_STAGE: job.stage,
    CI_JOB_URL: jobWebUrl(c, project, job.id),
  };
  if (job.started_at) vars.CI_JOB_STARTED_AT = iso8601(job.started_at)!;
  if (job.when === 'manual') vars.CI_JOB_MANUAL = 'true';
  if (typeof options.image === 'string' && options.image) vars.CI_JOB_IMAGE = options.image;
  const par = parallelOf(job.name, options);
  vars.CI_NODE_TOTAL = String(par?.total ?? 1);
  if (par) vars.CI_NODE_INDEX = String(par.index);
  const env = options.environment as { name?: unknown; url?: unknown; action?: unknown } | null | undefined;
  if (env && typeof env.name === 'string') {
    vars.CI_ENVIRONMENT_NAME = env.name;
    vars.CI_ENVIRONMENT_SLUG = slugify(env.name).slice(0, 24).replace(/-+$/, '');
    if (typeof env.url === 'string' && env.url) vars.CI_ENVIRONMENT_URL = env.url;
    if (typeof env.action === 'string' && env.action) vars.CI_ENVIRONMENT_ACTION = env.action;
  }
  return vars;
}

/**
 * The predefined variables of a pipeline, and of one of its jobs when given (CI_JOB_*,
 * CI_NODE_*, CI_ENVIRONMENT_*; SERVICE_USER_* of the job's user). Never CI_JOB_TOKEN.
 */
export async function predefinedVariables(c: Container, project: ProjectRow, pipeline: PipelineRow, job?: JobRow): Promise<Record<string, string>> {
  const vars = await pipelinePredefined(c, project, {
    ...pipeline,
    tag: pipeline.tag === 1,
    user_id: job?.user_id ?? pipeline.user_id,
  });
  if (job) Object.assign(vars, jobVariables(c, project, job));
  return vars;
}

export interface PipelineVariable {
  key: string;
  value: string;
  variable_type: string;
}

/** The variables given when the pipeline was created (API, trigger, bridge), decrypted, in order. */
export async function pipelineVariables(c: Container, pipelineId: number, db = c.db): Promise<PipelineVariable[]> {
  return (await pipelineVariableRows(db, pipelineId)).map((r) => ({
    key: r.key,
    value: decryptSecret(c.config.secretKey, r.encrypted_value),
    variable_type: r.variable_type,
  }));
}

// ---- a job's variables ----

/**
 * One variable of a job as a runner gets it (the reference's runner variable): `public` for
 * what anyone who sees the pipeline may know, `file` for a file whose path is the variable,
 * `masked` for a value replaced by [MASKED] in the log, `raw` for a value not expanded.
 */
export interface JobVariable {
  key: string;
  value: string;
  public: boolean;
  file: boolean;
  masked: boolean;
  raw: boolean;
}

const OWNER_ORDER: Record<string, number> = { instance: 0, group: 1, project: 2 };

/**
 * How an environment scope matches an environment: -1 not at all, else the reference's order
 * (`*` 0, a wildcard pattern 1, the exact name 2; a higher one wins). A job without an
 * environment gets only `*`.
 */
export function scopeRank(scope: string, environment: string | null): number {
  if (scope === '*') return 0;
  if (environment === null) return -1;
  if (scope === environment) return 2;
  if (!scope.includes('*')) return -1;
  const re = new RegExp(`^${scope.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return re.test(environment) ? 1 : -1;
}

/**
 * The project's, its groups' (parent groups first) and the instance's CI/CD variables a pipeline
 * of the project sees, lowest precedence first: protected ones only on a protected ref; by
 * environment scope (the job's environment, or none).
 */
export async function settingsVariables(
  c: Container,
  project: ProjectRow,
  opts: { refProtected: boolean; environment: string | null },
): Promise<JobVariable[]> {
  const ns = await findNamespaceById(c.db, project.namespace_id);
  const groupIds = ns && ns.kind === 'group' ? await selfAndAncestorIds(c, ns) : [];
  const depth = new Map(groupIds.map((id, i) => [id, groupIds.length - i])); // root first
  const rows = (await variablesOfOwners(c.db, project.id, groupIds))
    .map((r) => ({ r, rank: scopeRank(r.environment_scope, opts.environment) }))
    .filter(({ r, rank }) => rank >= 0 && (opts.refProtected || r.protected !== 1))
    .sort(
      (a, b) =>
        OWNER_ORDER[a.r.owner_type]! - OWNER_ORDER[b.r.owner_type]! ||
        (depth.get(a.r.owner_id) ?? 0) - (depth.get(b.r.owner_id) ?? 0) ||
        a.rank - b.rank ||
        a.r.id - b.r.id,
    );
  return rows.map(({ r }) => ({
    key: r.key,
    value: decryptSecret(c.config.secretKey, r.encrypted_value),
    public: false,
    file: r.variable_type === 'file',
    masked: r.masked === 1,
    raw: r.raw === 1,
  }));
}

const given = (key: string, value: string, variableType: string): JobVariable => ({
  key,
  value,
  public: false,
  file: variableType === 'file',
  masked: false,
  raw: false,
});

/**
 * Every variable of a job, lowest precedence first (a later key wins), as the reference builds
 * them: CI_JOB_TOKEN and CI_REPOSITORY_URL (when the job's token is given), the predefined
 * variables, the CI file's global and job variables, the instance's, groups' (parent groups
 * first) and project's CI/CD variables, the pipeline's variables (API, trigger, schedule), the
 * variables given when a manual job was played. The built-in runner runs jobs with this list;
 * the runner API sends it as the job's `variables`. What only a runner knows (CI_PROJECT_DIR,
 * CI_BUILDS_DIR, CI_RUNNER_*) is the runner's to add.
 */
export async function jobVariableList(
  c: Container,
  project: ProjectRow,
  pipeline: PipelineRow,
  job: JobRow,
  token?: string,
): Promise<JobVariable[]> {
  const out: JobVariable[] = [];
  // Predefined values (a commit message, a token) are never expanded: `raw`.
  const pub = (key: string, value: string, raw = true): JobVariable => ({ key, value, public: true, file: false, masked: false, raw });
  if (token !== undefined) {
    const external = new URL(c.config.externalUrl);
    out.push({ ...pub('CI_JOB_TOKEN', token), public: false, masked: true });
    out.push({
      ...pub(
        'CI_REPOSITORY_URL',
        `${external.protocol}//service-ci-token:${token}@${external.host}${external.pathname.replace(/\/$/, '')}/${project.full_path}.git`,
      ),
      public: false,
    });
  }
  const predefined = await predefinedVariables(c, project, pipeline, job);
  for (const [k, v] of Object.entries(predefined)) out.push(pub(k, v));
  let options: { variables?: Record<string, unknown> } = {};
  try {
    options = JSON.parse(job.options) as typeof options;
  } catch {
    options = {};
  }
  for (const [k, v] of Object.entries(options.variables ?? {})) out.push(pub(k, String(v), false));
  out.push(
    ...(await settingsVariables(c, project, {
      refProtected: predefined.CI_COMMIT_REF_PROTECTED === 'true',
      environment: predefined.CI_ENVIRONMENT_NAME ?? null,
    })),
  );
  for (const v of await pipelineVariables(c, pipeline.id)) out.push(given(v.key, v.value, v.variable_type));
  for (const r of await jobVariableRows(c.db, job.id)) out.push(given(r.key, decryptSecret(c.config.secretKey, r.encrypted_value), r.variable_type));
  return out;
}

const DEBUG_VARIABLES = ['CI_DEBUG_TRACE', 'CI_DEBUG_SERVICES'];
const truthy = (v: string | undefined): boolean => v !== undefined && ['true', '1'].includes(v.trim().toLowerCase());

/**
 * The reference's Ci::Build#debug_mode?: CI_DEBUG_TRACE or CI_DEBUG_SERVICES true among the job's
 * variables (the last of a key wins). Its log then shows every variable's value.
 */
export async function isDebugJob(c: Container, project: ProjectRow, pipeline: PipelineRow, job: JobRow): Promise<boolean> {
  const last = new Map((await jobVariableList(c, project, pipeline, job)).map((v) => [v.key, v.value]));
  return DEBUG_VARIABLES.some((k) => truthy(last.get(k)));
}
