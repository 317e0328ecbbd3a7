// The relations of a project archive in the reference's field names, both ways: rows → records
// (export) and records → rows (import). One place per relation. An import keeps only the keys
// Anvil models; everything else in a record is dropped without a word, as the reference does.
import type { Insertable, Selectable } from 'kysely';
import type { CiJobsTable, CiPipelinesTable } from '../../db/schema.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { AccessEntryRow, ProtectedBranchRow } from '../../db/repos/protected_branches.js';
import type { CreateAccessRow, ProtectedTagRow } from '../../db/repos/protected_tags.js';
import type { BadgeRow } from '../../db/repos/badges.js';
import type { CustomAttributeRow } from '../../db/repos/custom_attributes.js';
import type { PlannedJob } from '../../ci/config/types.js';
import { ACCESS } from '../members/policy.js';
import type { ProjectSettingsInput } from '../projects/service.js';
import { urlError } from '../badges/render.js';

type Rec = Record<string, unknown>;
type PipelineRow = Selectable<CiPipelinesTable>;
type JobRow = Selectable<CiJobsTable>;

/** The relation files an import reads, in the order it reads them (members first: they map users). */
export const IMPORTED_RELATIONS = ['project_members', 'project_feature', 'ci_cd_settings', 'protected_branches', 'protected_tags', 'custom_attributes', 'ci_pipelines'] as const;
export type ImportedRelation = (typeof IMPORTED_RELATIONS)[number];

/** A record Anvil models but cannot save: becomes one failed relation. */
export class RecordError extends Error {
  constructor(readonly exceptionClass: string, message: string) {
    super(message);
  }
}
const invalid = (message: string) => new RecordError('ActiveRecord::RecordInvalid', `Validation failed: ${message}`);

// ---- small readers for untrusted values ----

/** A string the database and the API can hold: never one with a NUL byte. */
const str = (v: unknown): string | undefined => (typeof v === 'string' && !v.includes('\0') ? v : undefined);
/** The largest value of an integer column (ids, iids, positions): the API never produces more. */
const MAX_INT = 2 ** 31 - 1;
const int = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,10}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && Math.abs(n) <= MAX_INT ? n : undefined;
};
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : v === 'true' || v === 1 ? true : v === 'false' || v === 0 ? false : undefined);
const bit = (v: unknown): number | undefined => (bool(v) === undefined ? undefined : bool(v) ? 1 : 0);
/** A time the API can show (years 1970 to 9999); anything else is absent. */
const time = (v: unknown): string | undefined => {
  const s = str(v);
  if (!s) return undefined;
  const d = new Date(s);
  const year = d.getUTCFullYear();
  return Number.isNaN(d.getTime()) || year < 1970 || year > 9999 ? undefined : d.toISOString();
};
/** A job or pipeline's seconds: absent, or finite from 0 to a year's worth (no job runs longer). */
const MAX_SECONDS = 366 * 24 * 3600;
function seconds(v: unknown, field: string): number | null {
  if (v === null || v === undefined) return null;
  const n = num(v);
  if (n === undefined || n < 0 || n > MAX_SECONDS) throw invalid(`${field} must be a number from 0 to ${MAX_SECONDS}`);
  return n;
}

/** A coverage percentage from 0 to 100; anything else is absent. */
const percent = (v: unknown): number | null => {
  const n = num(v);
  return n !== undefined && n >= 0 && n <= 100 ? n : null;
};

/**
 * What the API refuses in any value: a NUL byte (no name, key or text the API stores has one).
 * Checked over the whole record, nested relations included, before anything is read from it.
 */
export function checkRecordValues(r: unknown, depth = 0): void {
  if (typeof r === 'string') {
    if (r.includes('\0')) throw invalid('a value contains a NUL byte');
  } else if (Array.isArray(r)) {
    for (const x of r) checkRecordValues(x, depth + 1);
  } else if (r && typeof r === 'object') {
    for (const [k, x] of Object.entries(r)) {
      if (k.includes('\0')) throw invalid('a key contains a NUL byte');
      checkRecordValues(x, depth + 1);
    }
  }
}
const truthy = (n: number) => n === 1;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter((x): x is Rec => !!x && typeof x === 'object' && !Array.isArray(x)) : []);

// ---- project attributes (tree/project.json) ----

/** The reference's feature access levels (ProjectFeature): disabled 0, private 10, enabled 20, public 30. */
const FEATURE_LEVELS: Record<string, number> = { disabled: 0, private: 10, enabled: 20, public: 30 };
const featureName = (v: unknown): string | undefined => {
  const n = int(v);
  return n === undefined ? undefined : Object.entries(FEATURE_LEVELS).find(([, l]) => l === n)?.[0];
};

/** tree/project.json: the project's own attributes (relations live in their own files). */
export function projectAttributes(p: ProjectRow, description: string | null): Rec {
  return {
    description: description ?? p.description ?? '',
    visibility_level: p.visibility_level,
    archived: truthy(p.archived),
    default_branch: p.default_branch,
    ci_config_path: p.ci_config_path,
    public_builds: truthy(p.public_jobs),
    shared_runners_enabled: truthy(p.shared_runners_enabled),
    only_allow_merge_if_pipeline_succeeds: truthy(p.only_allow_merge_if_pipeline_succeeds),
    allow_merge_on_skipped_pipeline: truthy(p.allow_merge_on_skipped_pipeline),
    only_allow_merge_if_all_discussions_are_resolved: truthy(p.only_allow_merge_if_all_discussions_are_resolved),
    request_access_enabled: truthy(p.request_access_enabled),
    resolve_outdated_diff_discussions: truthy(p.resolve_outdated_diff_discussions),
    remove_source_branch_after_merge: truthy(p.remove_source_branch_after_merge),
    autoclose_referenced_issues: truthy(p.autoclose_referenced_issues),
    suggestion_commit_message: p.suggestion_commit_message,
    merge_commit_template: p.merge_commit_template,
    squash_commit_template: p.squash_commit_template,
    squash_option: p.squash_option,
    merge_requests_rebase_enabled: p.merge_method === 'rebase_merge',
    merge_requests_ff_only_enabled: p.merge_method === 'ff',
    import_type: 'gitlab_project',
    creator_id: p.creator_id,
    deploy_keys: [],
    hooks: [],
  };
}

/** The project columns an archive's attributes set (unknown or malformed keys are dropped). */
export function projectPatchFrom(a: Rec): Partial<ProjectRow> {
  const patch: Record<string, unknown> = {
    description: str(a.description),
    visibility_level: [0, 10, 20].includes(int(a.visibility_level) ?? -1) ? int(a.visibility_level) : undefined,
    archived: bit(a.archived),
    default_branch: str(a.default_branch) || undefined,
    ci_config_path: str(a.ci_config_path),
    public_jobs: bit(a.public_builds ?? a.public_jobs),
    shared_runners_enabled: bit(a.shared_runners_enabled),
    only_allow_merge_if_pipeline_succeeds: bit(a.only_allow_merge_if_pipeline_succeeds),
    allow_merge_on_skipped_pipeline: bit(a.allow_merge_on_skipped_pipeline),
    only_allow_merge_if_all_discussions_are_resolved: bit(a.only_allow_merge_if_all_discussions_are_resolved),
    request_access_enabled: bit(a.request_access_enabled),
    resolve_outdated_diff_discussions: bit(a.resolve_outdated_diff_discussions),
    remove_source_branch_after_merge: bit(a.remove_source_branch_after_merge),
    autoclose_referenced_issues: bit(a.autoclose_referenced_issues),
    suggestion_commit_message: str(a.suggestion_commit_message),
    merge_commit_template: str(a.merge_commit_template),
    squash_commit_template: str(a.squash_commit_template),
    squash_option: ['never', 'always', 'default_on', 'default_off'].includes(str(a.squash_option) ?? '') ? a.squash_option : undefined,
    merge_method: bool(a.merge_requests_ff_only_enabled) ? 'ff' : bool(a.merge_requests_rebase_enabled) ? 'rebase_merge'
      : a.merge_requests_ff_only_enabled !== undefined || a.merge_requests_rebase_enabled !== undefined ? 'merge' : undefined,
  };
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<ProjectRow>;
}

/**
 * override_params: the project API's own parameters (the reference's optional_project_params),
 * as a multipart form sends them (strings); unknown keys and values that do not fit are dropped.
 */
export function overrideSettings(o: Record<string, unknown>): ProjectSettingsInput {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(o)) {
    if (!OVERRIDABLE.has(key)) continue;
    const kind = OVERRIDABLE.get(key)!;
    const v = kind === 'boolean' ? bool(raw) : kind === 'integer' ? int(raw) : kind === 'string' ? str(raw) : (kind as readonly string[]).includes(str(raw) ?? '') ? raw : undefined;
    if (v !== undefined) out[key] = v;
  }
  return out as ProjectSettingsInput;
}

const LEVELS = ['disabled', 'private', 'enabled'] as const;
const OVERRIDABLE = new Map<string, 'boolean' | 'integer' | 'string' | readonly string[]>([
  ['description', 'string'], ['default_branch', 'string'], ['visibility', ['private', 'internal', 'public']],
  ['issues_enabled', 'boolean'], ['merge_requests_enabled', 'boolean'], ['jobs_enabled', 'boolean'], ['wiki_enabled', 'boolean'],
  ['snippets_enabled', 'boolean'], ['container_registry_enabled', 'boolean'], ['container_registry_access_level', LEVELS],
  ['security_and_compliance_access_level', LEVELS], ['resolve_outdated_diff_discussions', 'boolean'], ['shared_runners_enabled', 'boolean'],
  ['ci_default_git_depth', 'integer'], ['ci_forward_deployment_enabled', 'boolean'], ['ci_separated_caches', 'boolean'], ['ci_config_path', 'string'],
  ['public_jobs', 'boolean'], ['public_builds', 'boolean'], ['only_allow_merge_if_pipeline_succeeds', 'boolean'], ['allow_merge_on_skipped_pipeline', 'boolean'],
  ['restrict_user_defined_variables', 'boolean'], ['only_allow_merge_if_all_discussions_are_resolved', 'boolean'],
  ['remove_source_branch_after_merge', 'boolean'], ['request_access_enabled', 'boolean'], ['merge_method', ['merge', 'rebase_merge', 'ff']],
  ['squash_option', ['never', 'always', 'default_on', 'default_off']], ['autoclose_referenced_issues', 'boolean'],
  ['suggestion_commit_message', 'string'], ['merge_commit_template', 'string'], ['squash_commit_template', 'string'],
]);

// ---- project_feature, ci_cd_settings (one record each) ----

const FEATURES = [
  ['issues_access_level', 'issues_access_level'],
  ['merge_requests_access_level', 'merge_requests_access_level'],
  ['builds_access_level', 'builds_access_level'],
  ['wiki_access_level', 'wiki_access_level'],
  ['snippets_access_level', 'snippets_access_level'],
  ['container_registry_access_level', 'container_registry_access_level'],
  ['security_and_compliance_access_level', 'security_and_compliance_access_level'],
] as const;

export function projectFeatureRecord(p: ProjectRow): Rec {
  const r: Rec = { project_id: p.id };
  for (const [key, column] of FEATURES) r[key] = FEATURE_LEVELS[p[column]] ?? FEATURE_LEVELS.enabled;
  r.created_at = p.created_at;
  r.updated_at = p.updated_at;
  return r;
}

export function projectFeaturePatch(r: Rec): Partial<ProjectRow> {
  const patch: Record<string, string> = {};
  for (const [key, column] of FEATURES) {
    const name = featureName(r[key]);
    if (name && name !== 'public') patch[column] = name;
  }
  return patch as Partial<ProjectRow>;
}

export const ciCdSettingsRecord = (p: ProjectRow): Rec => ({
  default_git_depth: p.ci_default_git_depth,
  forward_deployment_enabled: truthy(p.ci_forward_deployment_enabled),
  separated_caches: truthy(p.ci_separated_caches),
  restrict_user_defined_variables: truthy(p.restrict_user_defined_variables),
});

export function ciCdSettingsPatch(r: Rec): Partial<ProjectRow> {
  const depth = int(r.default_git_depth);
  const patch: Record<string, unknown> = {
    ci_default_git_depth: depth !== undefined && depth >= 0 && depth <= 1000 ? depth : undefined,
    ci_forward_deployment_enabled: bit(r.forward_deployment_enabled),
    ci_separated_caches: bit(r.separated_caches),
    restrict_user_defined_variables: bit(r.restrict_user_defined_variables),
  };
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<ProjectRow>;
}

// ---- project_members ----

export interface MemberExportRow {
  id: number; access_level: number; source_id: number; user_id: number; created_by_id: number | null; expires_at: string | null;
  created_at: string; updated_at: string; username: string; public_email: string;
}

export const memberRecord = (m: MemberExportRow): Rec => ({
  id: m.id,
  access_level: m.access_level,
  source_id: m.source_id,
  source_type: 'Project',
  user_id: m.user_id,
  notification_level: 3,
  created_at: m.created_at,
  updated_at: m.updated_at,
  created_by_id: m.created_by_id,
  expires_at: m.expires_at,
  invite_email: null,
  invite_token: null,
  invite_accepted_at: null,
  requested_at: null,
  user: { id: m.user_id, public_email: m.public_email || null, username: m.username },
});

export interface ExportedMember {
  oldUserId: number | null;
  email: string | null;
  username: string | null;
  accessLevel: number;
  expiresAt: string | null;
}

const ROLES: number[] = [ACCESS.GUEST, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.MAINTAINER, ACCESS.OWNER];

export function memberFrom(r: Rec): ExportedMember {
  const user = r.user && typeof r.user === 'object' ? (r.user as Rec) : {};
  const accessLevel = int(r.access_level);
  if (accessLevel === undefined || !ROLES.includes(accessLevel)) throw invalid('Access level is not included in the list');
  const expires = str(r.expires_at);
  return {
    oldUserId: int(user.id) ?? int(r.user_id) ?? null,
    email: (str(user.email) || str(user.public_email) || '').toLowerCase() || null,
    username: (str(user.username) || '').toLowerCase() || null,
    accessLevel,
    expiresAt: expires && /^\d{4}-\d{2}-\d{2}/.test(expires) ? expires.slice(0, 10) : null,
  };
}

// ---- protected_branches ----

const ENTRY_KEYS = { push: 'push_access_levels', merge: 'merge_access_levels', unprotect: 'unprotect_access_levels' } as const;

export function protectedBranchRecord(pb: ProtectedBranchRow, entries: AccessEntryRow[]): Rec {
  const r: Rec = {
    id: pb.id, project_id: pb.project_id, name: pb.name, created_at: pb.created_at, updated_at: pb.updated_at,
    allow_force_push: truthy(pb.allow_force_push), code_owner_approval_required: truthy(pb.code_owner_approval_required),
  };
  for (const [kind, key] of Object.entries(ENTRY_KEYS)) {
    r[key] = entries
      .filter((e) => e.kind === kind && e.group_id === null)
      .map((e) => ({ id: e.id, protected_branch_id: pb.id, access_level: e.access_level, user_id: e.user_id, created_at: pb.created_at, updated_at: pb.updated_at }));
  }
  return r;
}

export interface ImportedProtectedBranch {
  name: string;
  allowForcePush: number;
  codeOwnerApprovalRequired: number;
  entries: { kind: 'push' | 'merge' | 'unprotect'; access_level: number | null; user_id: number | null }[];
}

const ENTRY_LEVELS = [0, ACCESS.DEVELOPER, ACCESS.MAINTAINER, 60];

/** `mapUser` gives the new id of an exported user, or null when that user is not here. */
export function protectedBranchFrom(r: Rec, mapUser: (oldId: number) => number | null): ImportedProtectedBranch {
  const name = str(r.name)?.trim();
  if (!name) throw invalid("Name can't be blank");
  const entries: ImportedProtectedBranch['entries'] = [];
  for (const [kind, key] of Object.entries(ENTRY_KEYS) as [ImportedProtectedBranch['entries'][number]['kind'], string][]) {
    for (const e of list(r[key])) {
      const userId = int(e.user_id);
      if (userId !== undefined && userId !== null && e.access_level === null) {
        const mapped = mapUser(userId);
        if (mapped !== null) entries.push({ kind, access_level: null, user_id: mapped });
        continue;
      }
      const level = int(e.access_level);
      if (level === undefined || !ENTRY_LEVELS.includes(level)) throw invalid('Access level is not included in the list');
      entries.push({ kind, access_level: level, user_id: null });
    }
  }
  // A rule without push or merge entries gets the reference's default (maintainers).
  for (const kind of ['push', 'merge'] as const) {
    if (!entries.some((e) => e.kind === kind)) entries.push({ kind, access_level: ACCESS.MAINTAINER, user_id: null });
  }
  return { name, allowForcePush: bit(r.allow_force_push) ?? 0, codeOwnerApprovalRequired: bit(r.code_owner_approval_required) ?? 0, entries };
}

// ---- protected_tags ----

export const protectedTagRecord = (pt: ProtectedTagRow, entries: CreateAccessRow[]): Rec => ({
  id: pt.id, project_id: pt.project_id, name: pt.name, created_at: pt.created_at, updated_at: pt.updated_at,
  create_access_levels: entries
    .filter((e) => e.group_id === null)
    .map((e) => ({ id: e.id, protected_tag_id: pt.id, access_level: e.access_level, user_id: e.user_id, group_id: null, created_at: pt.created_at, updated_at: pt.updated_at })),
});

export interface ImportedProtectedTag {
  name: string;
  entries: { access_level: number | null; user_id: number | null }[];
}

/** `mapUser` as for protected branches: a user's entry stays only when that user is here. */
export function protectedTagFrom(r: Rec, mapUser: (oldId: number) => number | null): ImportedProtectedTag {
  const name = str(r.name)?.trim();
  if (!name) throw invalid("Name can't be blank");
  const entries: ImportedProtectedTag['entries'] = [];
  for (const e of list(r.create_access_levels)) {
    const userId = int(e.user_id);
    if (userId !== undefined && userId !== null && e.access_level === null) {
      const mapped = mapUser(userId);
      if (mapped !== null) entries.push({ access_level: null, user_id: mapped });
      continue;
    }
    const level = int(e.access_level);
    if (level === undefined || !ENTRY_LEVELS.includes(level)) throw invalid('Access level is not included in the list');
    entries.push({ access_level: level, user_id: null });
  }
  // A rule without entries gets the reference's default (maintainers may create).
  if (entries.length === 0) entries.push({ access_level: ACCESS.MAINTAINER, user_id: null });
  return { name, entries };
}

// ---- custom_attributes ----

export const customAttributeRecord = (a: CustomAttributeRow, projectId: number): Rec => ({
  id: a.id, created_at: a.created_at, updated_at: a.updated_at, project_id: projectId, key: a.key, value: a.value,
});

export function customAttributeFrom(r: Rec): { key: string; value: string } {
  const key = str(r.key);
  const value = typeof r.value === 'string' ? r.value : typeof r.value === 'number' || typeof r.value === 'boolean' ? String(r.value) : undefined;
  if (!key) throw invalid("Key can't be blank");
  if (value === undefined || value === '') throw invalid("Value can't be blank");
  return { key, value };
}

// ---- project_badges ----

export const badgeRecord = (b: BadgeRow): Rec => ({
  id: b.id, link_url: b.link_url, image_url: b.image_url, name: b.name, project_id: b.project_id, group_id: b.group_id,
  created_at: b.created_at, updated_at: b.updated_at, type: 'ProjectBadge',
});

/** A badge passes the API's own URL validation (http or https with a host: no `javascript:` link). */
export function badgeFrom(r: Rec): { name: string | null; link_url: string; image_url: string; created_at?: string; updated_at?: string } {
  const link = (str(r.link_url) ?? '').trim();
  const image = (str(r.image_url) ?? '').trim();
  const linkError = urlError(link);
  if (linkError) throw invalid(`Link url ${linkError}`);
  const imageError = urlError(image);
  if (imageError) throw invalid(`Image url ${imageError}`);
  return { name: str(r.name) ?? null, link_url: link, image_url: image, created_at: time(r.created_at), updated_at: time(r.updated_at) };
}

// ---- ci_pipelines (with stages and their builds and bridges) ----

const JOB_TYPES: Record<string, string> = { build: 'Ci::Build', bridge: 'Ci::Bridge' };

function jobRecord(j: JobRow): Rec {
  let options: unknown = null;
  try {
    options = JSON.parse(j.options);
  } catch {
    options = null;
  }
  return {
    id: j.id, project_id: j.project_id, commit_id: j.pipeline_id, type: JOB_TYPES[j.type] ?? 'Ci::Build', name: j.name, stage: j.stage,
    stage_idx: j.stage_idx, status: j.status, failure_reason: j.failure_reason, ref: j.ref, tag: truthy(j.tag), allow_failure: truthy(j.allow_failure),
    when: j.when, coverage: j.coverage, created_at: j.created_at, updated_at: j.updated_at, queued_at: j.queued_at, started_at: j.started_at,
    finished_at: j.finished_at, scheduled_at: j.scheduled_at, duration: j.duration, queued_duration: j.queued_duration, user_id: j.user_id,
    retried: truthy(j.retried), erased_at: j.erased_at, tag_list: safeJson(j.tag_list, []), options,
  };
}

const safeJson = (s: string, dflt: unknown) => {
  try {
    return JSON.parse(s);
  } catch {
    return dflt;
  }
};

/** One pipeline with its stages (in order) and each stage's builds and bridges. */
export function pipelineRecord(p: PipelineRow, jobs: JobRow[]): Rec {
  const stages = new Map<string, { idx: number; jobs: JobRow[] }>();
  for (const j of jobs) {
    const s = stages.get(j.stage) ?? { idx: j.stage_idx, jobs: [] };
    s.jobs.push(j);
    stages.set(j.stage, s);
  }
  return {
    id: p.id, iid: p.iid, project_id: p.project_id, name: p.name, ref: p.ref, sha: p.sha, before_sha: p.before_sha, tag: truthy(p.tag),
    yaml_errors: p.yaml_errors, committed_at: p.committed_at, status: p.status, source: p.source, started_at: p.started_at,
    finished_at: p.finished_at, duration: p.duration, queued_duration: p.queued_duration, coverage: p.coverage, user_id: p.user_id,
    created_at: p.created_at, updated_at: p.updated_at,
    stages: [...stages.entries()]
      .sort((a, b) => a[1].idx - b[1].idx)
      .map(([name, s]) => ({
        name, position: s.idx, pipeline_id: p.id, project_id: p.project_id, status: s.jobs[s.jobs.length - 1]!.status,
        created_at: p.created_at, updated_at: p.updated_at,
        builds: s.jobs.filter((j) => j.type !== 'bridge').map(jobRecord),
        bridges: s.jobs.filter((j) => j.type === 'bridge').map(jobRecord),
        generic_commit_statuses: [],
      })),
  };
}

const PIPELINE_STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'];
const JOB_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed', 'never'];
/** Statuses that would make an imported job run: history never runs again. */
const ACTIVE_TO_FINAL: Record<string, string> = { created: 'canceled', waiting_for_resource: 'canceled', preparing: 'canceled', pending: 'canceled', running: 'canceled' };

/** Jobs one imported pipeline may hold; a record with more is a failed relation, not thousands of rows. */
export const MAX_PIPELINE_JOBS = 5000;

export interface ImportedPipeline {
  iid: number | null;
  row: Omit<Insertable<CiPipelinesTable>, 'iid' | 'project_id'>;
  jobs: Omit<Insertable<CiJobsTable>, 'pipeline_id' | 'project_id'>[];
}

function plannedJob(options: unknown, name: string, stage: string, stageIdx: number, type: 'build' | 'bridge', when: string, allowFailure: boolean): PlannedJob {
  const o = options && typeof options === 'object' && !Array.isArray(options) ? (options as Partial<PlannedJob>) : {};
  const strings = (v: unknown) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : []);
  return {
    name, stage, stageIdx, type, when: when as PlannedJob['when'], startIn: typeof o.startIn === 'string' ? o.startIn : null,
    allowFailure, allowFailureExitCodes: null, beforeScript: strings(o.beforeScript), script: strings(o.script), afterScript: strings(o.afterScript),
    image: typeof o.image === 'string' ? o.image : null, variables: {}, needs: null, dependencies: null, artifacts: null,
    coverage: typeof o.coverage === 'string' ? o.coverage : null, retry: { max: 0, when: ['always'] }, timeout: null,
    tags: strings(o.tags), environment: null, interruptible: o.interruptible === true, trigger: null,
  };
}

/** `mapUser` maps an exported user id to a user here (the importer when unknown). */
export function pipelineFrom(r: Rec, mapUser: (oldId: number | null) => number, now: string): ImportedPipeline {
  // The reference saves imported pipelines without validating ref and sha; so does this.
  const sha = str(r.sha) ?? '';
  const ref = str(r.ref) ?? '';
  const rawStatus = str(r.status) ?? 'created';
  if (!PIPELINE_STATUSES.includes(rawStatus)) throw invalid('Status is invalid');
  const createdAt = time(r.created_at) ?? now;
  const status = ACTIVE_TO_FINAL[rawStatus] ?? rawStatus;
  const jobs: ImportedPipeline['jobs'] = [];
  const stages = list(r.stages);
  const size = stages.reduce((n, stage) => n + list(stage.builds).length + list(stage.bridges).length + list(stage.statuses).length, 0);
  if (size > MAX_PIPELINE_JOBS) throw invalid(`Pipeline has more than ${MAX_PIPELINE_JOBS} jobs`);
  stages.forEach((stage, position) => {
    const stageName = str(stage.name) ?? 'test';
    const stageIdx = int(stage.position) ?? position;
    // current exports: builds and bridges; older ones: statuses (generic commit statuses are not modeled)
    const entries = [...list(stage.builds), ...list(stage.bridges), ...list(stage.statuses)].filter((j) => j.type !== 'GenericCommitStatus');
    for (const j of entries) {
      const name = str(j.name);
      if (!name) throw invalid("Name can't be blank");
      const type = j.type === 'Ci::Bridge' ? 'bridge' : 'build';
      const jobStatus = str(j.status) ?? 'created';
      if (!PIPELINE_STATUSES.includes(jobStatus)) throw invalid('Status is invalid');
      const when = JOB_WHEN.includes(str(j.when) ?? '') ? str(j.when)! : 'on_success';
      const allowFailure = bool(j.allow_failure) ?? false;
      const jobStage = str(j.stage) ?? stageName;
      const jobStageIdx = int(j.stage_idx) ?? stageIdx;
      const tagList = Array.isArray(j.tag_list) ? j.tag_list.filter((t) => typeof t === 'string') : [];
      jobs.push({
        type, name, stage: jobStage, stage_idx: jobStageIdx, status: ACTIVE_TO_FINAL[jobStatus] ?? jobStatus,
        failure_reason: str(j.failure_reason) ?? null, ref: str(j.ref) ?? ref, tag: bit(j.tag) ?? 0, allow_failure: allowFailure ? 1 : 0,
        when, coverage: percent(j.coverage), created_at: time(j.created_at) ?? createdAt, updated_at: time(j.updated_at) ?? createdAt,
        queued_at: time(j.queued_at) ?? null, started_at: time(j.started_at) ?? null, finished_at: time(j.finished_at) ?? null,
        scheduled_at: time(j.scheduled_at) ?? null, duration: seconds(j.duration, 'Duration'), queued_duration: seconds(j.queued_duration, 'Queued duration'),
        artifacts_expire_at: null, tag_list: JSON.stringify(tagList), user_id: mapUser(int(j.user_id) ?? null), retried: bit(j.retried) ?? 0,
        retry_count: 0, options: JSON.stringify(plannedJob(j.options, name, jobStage, jobStageIdx, type, when, allowFailure)), exit_code: null,
        erased_at: time(j.erased_at) ?? null,
      });
    }
  });
  let iid: number | null = null;
  if (r.iid !== undefined && r.iid !== null) {
    iid = int(r.iid) ?? 0;
    if (iid < 1) throw invalid('Iid must be a whole number greater than 0');
  }
  return {
    iid,
    row: {
      name: str(r.name) ?? null, status, source: str(r.source) ?? 'unknown', ref, sha, before_sha: str(r.before_sha) ?? '0'.repeat(40), tag: bit(r.tag) ?? 0,
      yaml_errors: str(r.yaml_errors) ?? null, user_id: mapUser(int(r.user_id) ?? null), created_at: createdAt, updated_at: time(r.updated_at) ?? createdAt,
      started_at: time(r.started_at) ?? null, finished_at: time(r.finished_at) ?? null, committed_at: time(r.committed_at) ?? null,
      duration: seconds(r.duration, 'Duration'), queued_duration: seconds(r.queued_duration, 'Queued duration'), coverage: str(r.coverage) ?? null,
      commit_message: null, commit_author_name: null, commit_author_email: null, commit_created_at: null,
    },
    jobs,
  };
}
