// Forks: POST /projects/:id/fork, the list of a project's forks, and the admin/owner operations
// that create or remove a fork relation between existing projects.
//
// A fork is a new project with forked_from_id set and the source's forks_count one higher. Its
// repository is copied in the background: the job `project_fork_repository` (runForkRepository
// below) is the one place where the git work goes; until it has run the fork's import_status is
// `scheduled`, as the reference's forks are while their repository is being copied.
import type { Container } from '../context.js';
import { initBare } from '../../git/repository.js';
import { copyProjectRepository, repositoryDir } from '../repository/service.js';
import { scheduleRepositoryRefresh } from '../repository/statistics.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { findNamespaceByFullPath, findNamespaceById, type NamespaceRow } from '../../db/repos/namespaces.js';
import { insertFork, linkFork, setImportStatus, unlinkFork } from '../../db/repos/project_forks.js';
import { findProjectById, projectTaken } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { badRequest, conflict, forbidden, notFound, notModified } from '../errors.js';
import { recordEvent } from '../events/service.js';
import { findNamespace } from '../namespaces/find.js';
import { pathErrors } from '../groups/validation.js';
import { ACCESS, VISIBILITY, type VisibilityName } from '../members/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import { newRegistrationToken } from '../runners/registration_tokens.js';
import { nowIso } from '../../shared/time.js';
import { personalProjectsLimitError } from './limits.js';
import { canAdminProject, canCreateProjectIn, isProjectOwner } from './policy.js';
import { listWith, nameErrors, projectSettings, view, type ListProjectsInput, type ProjectView } from './service.js';
import { findProject } from './find.js';

export const FORK_REPOSITORY_JOB = 'project_fork_repository';

export interface ForkInput {
  /** Deprecated: id or full path. */
  namespace?: string;
  namespace_id?: number;
  namespace_path?: string;
  path?: string;
  name?: string;
  description?: string;
  visibility?: VisibilityName;
}

/** The highest visibility level at or below `level` that the instance does not restrict (else private). */
function closestAllowedLevel(level: number, restricted: number[]): number {
  for (const l of [VISIBILITY.public, VISIBILITY.internal, VISIBILITY.private]) {
    if (l <= level && !restricted.includes(l)) return l;
  }
  return VISIBILITY.private;
}

/** POST /projects/:id/fork */
export async function forkProject(c: Container, actor: Actor, idOrPath: number | string, input: ForkInput): Promise<ProjectView> {
  // Whoever may read a project may fork it (404 otherwise, as for reading it).
  const { row: source } = await findProject(c, actor, idOrPath);

  let target: NamespaceRow | undefined;
  if (input.namespace_id !== undefined) target = (await findNamespace(c, actor, input.namespace_id)).row;
  else if (input.namespace_path) target = (await findNamespace(c, actor, input.namespace_path)).row;
  else if (input.namespace) target = (await findNamespace(c, actor, input.namespace)).row;
  else if (actor.user.namespace_id !== null) target = await findNamespaceById(c.db, actor.user.namespace_id);
  // The fork targets are the caller's namespace and the groups where they may create projects.
  if (!target || !(await canCreateProjectIn(c, actor, target))) throw notFound('Target Namespace');

  const name = input.name ?? source.name;
  const path = input.path ?? source.path;
  const errors: Record<string, string[]> = {};
  const ne = nameErrors(name);
  if (ne.length) errors.name = ne;
  else if (await projectTaken(c.db, target.id, 'name', name, null)) errors.name = ['has already been taken'];
  const pe = pathErrors(path, false);
  if (pe.length) errors.path = pe;
  else if ((await projectTaken(c.db, target.id, 'path', path, null)) || (await findNamespaceByFullPath(c.db, `${target.full_path}/${path}`))) {
    errors.path = ['has already been taken'];
  }
  const limitReached = await personalProjectsLimitError(c, actor.user, target);
  if (limitReached) errors.limit_reached = [limitReached];
  // The reference answers a fork that cannot be saved with 409 and the model's errors.
  if (Object.keys(errors).length) throw conflict(errors);

  // No more visible than the source, the target group, or what was asked; then the closest level the instance allows.
  let level = source.visibility_level;
  if (target.kind === 'group') level = Math.min(level, target.visibility_level);
  if (input.visibility !== undefined) level = Math.min(level, VISIBILITY[input.visibility]);
  level = closestAllowedLevel(level, (await projectSettings(c)).restrictedVisibilityLevels);

  const now = nowIso();
  const fullPath = `${target.full_path}/${path}`;
  try {
    const row = await insertFork(
      c.db,
      {
        name,
        path,
        full_path: fullPath,
        full_path_lower: fullPath.toLowerCase(),
        namespace_id: target.id,
        creator_id: actor.user.id,
        description: input.description ?? source.description,
        visibility_level: level,
        default_branch: source.default_branch,
        forked_from_id: source.id,
        // What the reference's fork service carries over from the source.
        shared_runners_enabled: source.shared_runners_enabled,
        ci_config_path: source.ci_config_path,
        ci_default_git_depth: source.ci_default_git_depth,
        suggestion_commit_message: source.suggestion_commit_message,
        merge_commit_template: source.merge_commit_template,
        squash_commit_template: source.squash_commit_template,
        import_status: 'scheduled',
        ...newRegistrationToken(c).stored,
        last_activity_at: now,
        created_at: now,
        updated_at: now,
      },
      {
        topics: [],
        owner: target.kind === 'group' || target.owner_id === null ? null : { userId: target.owner_id, accessLevel: ACCESS.OWNER },
      },
      // The copy is queued in the same transaction: a fork never waits for a job that was not stored.
      async (tx, fork) => void (await c.queue.enqueue(FORK_REPOSITORY_JOB, { projectId: fork.id }, { trx: tx })),
    );
    // A fork is a project created by the caller, and recorded as one.
    await recordEvent(c, { action: 'created', authorId: actor.user.id, projectId: row.id });
    return view(c, actor, row, { full: true });
  } catch (err) {
    // A concurrent request took the path between the check and the insert.
    if (isUniqueViolation(err)) throw conflict({ path: ['has already been taken'] });
    throw err;
  }
}

/**
 * The job that copies a fork's repository. Repositories come with a later issue: the git copy
 * from the source goes here. Until then the fork is ready at once. Idempotent: a fork that is
 * gone or already finished is left alone.
 */
export async function runForkRepository(c: Container, payload: { projectId: number }): Promise<void> {
  const fork = await findProjectById(c.db, Number(payload.projectId));
  if (!fork || fork.import_status === 'finished') return;
  const source = fork.forked_from_id === null ? null : await findProjectById(c.db, fork.forked_from_id);
  if (source) await copyProjectRepository(c, source.id, fork.id);
  else await initBare(repositoryDir(c, fork.id), fork.default_branch ?? 'main'); // the source went away first
  await setImportStatus(c.db, fork.id, 'finished');
  await scheduleRepositoryRefresh(c, fork.id);
}

/** GET /projects/:id/forks: the project's direct forks that the caller may see, with the list filters. */
export async function listForks(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  input: ListProjectsInput,
  page: PageRequest,
): Promise<PageResult<ProjectView>> {
  const { row } = await findProject(c, actor, idOrPath);
  return listWith(c, actor, input, page, { forkedFromId: row.id });
}

/** POST /projects/:id/fork/:forked_from_id: maintainers (admin_project) mark their project as a fork of one they may read. */
export async function createForkRelation(c: Container, actor: Actor, idOrPath: number | string, forkedFromId: string): Promise<ProjectView> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  const { row: source } = await findProject(c, actor, forkedFromId);
  if (source.id === row.id) throw badRequest('A project cannot be a fork of itself');
  if (!(await linkFork(c.db, row.id, source.id, nowIso()))) throw conflict('Project already forked');
  return view(c, actor, (await findProjectById(c.db, row.id))!, { full: true });
}

/** DELETE /projects/:id/fork: owners remove the relation; false (304) when the project is not a fork. */
export async function removeForkRelation(c: Container, actor: Actor, idOrPath: number | string, ifUnmodifiedSince: Date | null): Promise<void> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!isProjectOwner(access)) throw forbidden();
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);
  if (!(await unlinkFork(c.db, row.id, nowIso()))) throw notModified();
}
