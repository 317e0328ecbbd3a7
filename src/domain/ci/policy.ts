// Who may see and act on a project's CI: pipelines, jobs, bridges (the reference's ProjectPolicy,
// Ci::PipelinePolicy and Ci::BuildPolicy, in the parts Anvil has).
//
// - read_pipeline: reporters and above; public access (a public project, or an internal one for
//   signed-in users who are not external); other guests only with `public_jobs`.
// - read_build (job lists, job details, logs, artifacts): reporters and above; others who can see
//   the project only with `public_jobs` ("public pipelines"). read_build_trace: the log of a job in
//   debug mode only for developers and above.
// - create/update (create, retry, cancel, play pipelines and jobs): developers and above, not in an
//   archived project; on a protected branch the user must also be allowed to push or merge to it.
// - admin_build (erase others' jobs): maintainers and above; destroy_pipeline: owners (and admins).
// The CI feature (`builds_access_level`) `disabled` turns all of it off; `private` keeps it for members.
// An invisible project is 404 'Project'; a visible one whose CI the actor may not use is 403.
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { ACCESS, type GroupAccess } from '../members/policy.js';
import { featureAvailable, isProjectOwner, projectAccess, type ProjectAccess } from '../projects/policy.js';
import type { FoundProject } from '../projects/find.js';
import { canPushToBranch, anyEntryAllows, entriesFor, loadProtection, matchingRules } from '../protected_branches/policy.js';
import { canCreateTag, loadTagProtection } from '../protected_tags/policy.js';

export interface CiAccess {
  /** The actor's effective project role (0 for none or anonymous). */
  level: number;
  admin: boolean;
  /** The project itself is visible to the actor. */
  visible: boolean;
  /** read_pipeline: pipelines, their variables and test reports. */
  readPipelines: boolean;
  /** read_build: jobs, bridges, logs, artifacts. */
  read: boolean;
  /** create_pipeline / update_pipeline / update_build: create, retry, cancel, play. */
  update: boolean;
  /** admin_build: maintainers (erase other users' jobs, manage). */
  manage: boolean;
  /** destroy_pipeline: owners and admins, as the reference's permission table has it. */
  del: boolean;
  project: ProjectAccess;
}

export function ciAccessFrom(p: ProjectRow, a: ProjectAccess): CiAccess {
  // The CI feature (builds_access_level) is usable by this actor at all.
  const on = a.canRead && featureAvailable(p.builds_access_level, a);
  const reporter = a.admin || a.level >= ACCESS.REPORTER;
  const publicJobs = p.public_jobs === 1;
  const read = on && (reporter || publicJobs);
  const readPipelines = on && (reporter || a.publicAccess || (publicJobs && a.level >= ACCESS.GUEST));
  const developer = a.admin || a.level >= ACCESS.DEVELOPER;
  const update = on && a.signedIn && developer && p.archived !== 1;
  return {
    level: a.level,
    admin: a.admin,
    visible: a.canRead,
    readPipelines,
    read,
    update,
    manage: update && (a.admin || a.level >= ACCESS.MAINTAINER),
    del: on && a.signedIn && isProjectOwner(a),
    project: a,
  };
}

/** A project row, or one `findProject` already found with the actor's access (not computed twice). */
export type CiProject = ProjectRow | FoundProject;

export async function ciAccess(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  return 'access' in project ? ciAccessFrom(project.row, project.access) : ciAccessFrom(project, await projectAccess(c, actor, project));
}

function visibleOr404(a: CiAccess): void {
  if (!a.visible) throw notFound('Project');
}

/** read_build (jobs, bridges, logs, artifacts): 404 for an invisible project, 403 otherwise. */
export async function requireCiRead(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  const a = await ciAccess(c, actor, project);
  visibleOr404(a);
  if (!a.read) throw forbidden();
  return a;
}

/** read_pipeline (a pipeline, its variables, test reports). */
export async function requirePipelineRead(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  const a = await ciAccess(c, actor, project);
  visibleOr404(a);
  if (!a.readPipelines) throw forbidden();
  return a;
}

/** Pipeline lists need both read_pipeline and read_build, as the reference's API has it. */
export async function requirePipelineList(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  const a = await requirePipelineRead(c, actor, project);
  if (!a.read) throw forbidden();
  return a;
}

/** Developers and above: create, retry, cancel, play. 401 for nobody. */
export async function requireCiWrite(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  if (!actor) throw unauthorized();
  const a = await ciAccess(c, actor, project);
  visibleOr404(a);
  if (!a.update) throw forbidden();
  return a;
}

/** Maintainers and above (admin_build). */
export async function requireCiAdmin(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  const a = await requireCiWrite(c, actor, project);
  if (!a.manage) throw forbidden();
  return a;
}

/** Deleting a pipeline: destroy_pipeline, owners and admins. */
export async function requirePipelineDelete(c: Container, actor: Actor | null, project: CiProject): Promise<CiAccess> {
  if (!actor) throw unauthorized();
  const a = await ciAccess(c, actor, project);
  visibleOr404(a);
  if (!a.del) throw forbidden();
  return a;
}

/**
 * read_build_trace: read_build; the log of a job in debug mode (CI_DEBUG_TRACE, which prints every
 * variable) only for those who may update jobs (developers and above), as the reference's BuildPolicy.
 */
export const canReadTrace = (a: CiAccess, debugMode: boolean): boolean => a.read && (!debugMode || a.update);

/**
 * The reference's erase_build: maintainers erase any job; developers their own (`jobUserId`).
 * Callers check `update` (and the ref) first.
 */
export const canEraseJob = (a: CiAccess, actor: Actor, jobUserId: number | null): boolean =>
  a.update && (a.manage || (jobUserId !== null && jobUserId === actor.user.id));

/**
 * The ref rule of Ci::PipelinePolicy/BuildPolicy: on a protected branch the user must be allowed to
 * push or merge to it; on a tag the user must be allowed to create it (a protected tag's create
 * entries); an unprotected branch needs developer access (`update`).
 */
export async function canUpdateRef(c: Container, actor: Actor, project: ProjectRow, a: CiAccess, ref: string, tag: boolean): Promise<boolean> {
  if (!a.update) return false;
  if (tag) return canCreateTag(c, { actor, access: a.project }, project, await loadTagProtection(c, project.id), ref);
  const set = await loadProtection(c, project.id);
  const rules = matchingRules(set, ref);
  if (rules.length === 0) return true;
  const who = { actor, access: a.project };
  if (await canPushToBranch(c, who, project, set, ref)) return true;
  return anyEntryAllows(c, who, entriesFor(set, rules, 'merge'));
}

/**
 * read_pipeline_variable: maintainers (admin_pipeline), or the user who triggered the pipeline while
 * they may still update it (update_pipeline: developer, and its ref not protected against them).
 */
export async function canReadPipelineVariables(
  c: Container,
  actor: Actor | null,
  project: ProjectRow,
  a: CiAccess,
  pipeline: { user_id: number | null; ref: string; tag: number },
): Promise<boolean> {
  if (a.manage) return true;
  if (!actor || pipeline.user_id !== actor.user.id) return false;
  return canUpdateRef(c, actor, project, a, pipeline.ref, pipeline.tag === 1);
}

/** 403 unless `canUpdateRef`. */
export async function requireRefUpdate(c: Container, actor: Actor, project: ProjectRow, a: CiAccess, ref: string, tag: boolean): Promise<void> {
  if (!(await canUpdateRef(c, actor, project, a, ref, tag))) throw forbidden();
}

/** CI/CD variables and trigger tokens of a project: the reference's admin_build (maintainers). */
export const requireCiSettings = requireCiAdmin;

/** CI/CD variables of a group: owners (the reference's admin_group). */
export const canManageGroupVariables = (a: GroupAccess): boolean => a.canAdmin;
