// The runners REST API: lists (owned, all, a project's, a group's), one runner's details, its
// update and deletion, its jobs, project assignment, token resets, and runners created by a user
// (`POST /user/runners`, then registered with `gitlab-runner register --token`).
import type { Container } from '../context.js';
import type { Actor } from '../auth/actor.js';
import {
  assignRunnerProject, deleteRunner, projectIdsMaintainedBy, findRunnerById, managersOf, pageRunnerJobs, pageRunners, runnerProjectIds, setGroupRunnersToken,
  setProjectRunnersToken, unassignRunnerProject, updateRunner, type RunnerFilter, type RunnerManagerRow, type RunnerRow,
} from '../../db/repos/runners.js';
import { findProjectsByIds, type ProjectRow } from '../../db/repos/projects.js';
import { findNamespaceById, type NamespaceRow } from '../../db/repos/namespaces.js';
import { groupIdsAtOrBelowMemberships } from '../../db/repos/members.js';
import type { JobRow } from '../../db/repos/ci_jobs.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { badRequest, forbidden, notFound, refused } from '../errors.js';
import { newRegistrationToken } from './registration_tokens.js';
import { nowIso, today } from '../../shared/time.js';
import { findProject } from '../projects/find.js';
import { findGroup } from '../groups/find.js';
import { projectAccess } from '../projects/policy.js';
import { groupAccess } from '../members/policy.js';
import { BUILT_IN_RUNNER_ID } from '../ci/built_in_runner.js';
import { canManageAllRunners, canManageGroupRunners, canManageProjectRunners } from './policy.js';
import { createRunnerRecord, resetRunnerToken, settingsPatch, type Registered, type RunnerSettingsInput } from './runners.js';

const RUNNER_NOT_FOUND = () => notFound('Runner');

export interface RunnerListInput {
  type?: string;
  paused?: boolean;
  status?: string;
  tag_list?: string[];
  scope?: string;
}

function listFilter(input: RunnerListInput): RunnerFilter {
  const type = input.type ?? (input.scope && input.scope.endsWith('_type') ? input.scope : undefined);
  return { types: type ? [type] : null, paused: input.paused ?? (input.scope === 'paused' ? true : input.scope === 'active' ? false : null), tags: input.tag_list ?? null };
}

/** `GET /runners`: the runners of the projects the user maintains and the groups the user owns. */
export async function listOwnedRunners(c: Container, actor: Actor, input: RunnerListInput, page: PageRequest): Promise<PageResult<RunnerRow>> {
  const projectIds = await projectIdsMaintainedBy(c.db, actor.user.id);
  const groupIds = await groupIdsAtOrBelowMemberships(c.db, actor.user.id, 50, today());
  return pageRunners(c.db, { ...listFilter(input), projectIds, groupIds }, page);
}

/** `GET /runners/all` (administrators). */
export async function listAllRunners(c: Container, actor: Actor, input: RunnerListInput, page: PageRequest): Promise<PageResult<RunnerRow>> {
  if (!canManageAllRunners(actor)) throw forbidden();
  return pageRunners(c.db, listFilter(input), page);
}

/** `GET /projects/:id/runners`: its assigned runners, its groups' and the instance's. */
export async function listProjectRunners(c: Container, actor: Actor, idOrPath: number | string, input: RunnerListInput, page: PageRequest): Promise<PageResult<RunnerRow>> {
  const found = await findProject(c, actor, idOrPath);
  if (!canManageProjectRunners(found.access)) throw forbidden();
  const ns = await findNamespaceById(c.db, found.row.namespace_id);
  const groupIds = ns && ns.kind === 'group' ? await ancestorGroupIds(c, ns) : [];
  return pageRunners(c.db, { ...listFilter(input), projectIds: [found.row.id], groupIds, withInstance: true }, page);
}

async function ancestorGroupIds(c: Container, ns: NamespaceRow): Promise<number[]> {
  const ids: number[] = [];
  for (let g: NamespaceRow | undefined = ns; g; g = g.parent_id ? await findNamespaceById(c.db, g.parent_id) : undefined) ids.push(g.id);
  return ids;
}

/** `GET /groups/:id/runners`: the group's own runners (and the instance's). */
export async function listGroupRunners(c: Container, actor: Actor, idOrPath: number | string, input: RunnerListInput, page: PageRequest): Promise<PageResult<RunnerRow>> {
  const found = await findGroup(c, actor, idOrPath);
  if (!canManageGroupRunners(found.access)) throw forbidden();
  return pageRunners(c.db, { ...listFilter(input), groupIds: await ancestorGroupIds(c, found.row), withInstance: input.type === undefined || input.type === 'instance_type' }, page);
}

/** A runner the actor may manage: admins any; maintainers of one of its projects; owners of its group. 404 / 403 otherwise. */
export async function manageableRunner(c: Container, actor: Actor, id: number): Promise<RunnerRow> {
  const runner = await findRunnerById(c.db, id);
  if (!runner) throw RUNNER_NOT_FOUND();
  if (canManageAllRunners(actor)) return runner;
  if (runner.runner_type === 'group_type' && runner.group_id !== null) {
    const g = await findNamespaceById(c.db, runner.group_id);
    if (g && canManageGroupRunners(await groupAccess(c, actor, g))) return runner;
  }
  if (runner.runner_type === 'project_type') {
    for (const p of await findProjectsByIds(c.db, await runnerProjectIds(c.db, runner.id))) {
      if (canManageProjectRunners(await projectAccess(c, actor, p))) return runner;
    }
  }
  throw runner.runner_type === 'instance_type' ? forbidden('Runner is instance type') : forbidden('No access granted');
}

export interface RunnerDetails {
  runner: RunnerRow;
  projects: ProjectRow[];
  group: NamespaceRow | null;
  managers: RunnerManagerRow[];
}

export async function runnerDetails(c: Container, runner: RunnerRow): Promise<RunnerDetails> {
  const [projects, group, managers] = await Promise.all([
    findProjectsByIds(c.db, await runnerProjectIds(c.db, runner.id)),
    runner.group_id !== null ? findNamespaceById(c.db, runner.group_id) : Promise.resolve(undefined),
    managersOf(c.db, runner.id),
  ]);
  return { runner, projects, group: group ?? null, managers };
}

export async function getRunner(c: Container, actor: Actor, id: number): Promise<RunnerDetails> {
  return runnerDetails(c, await manageableRunner(c, actor, id));
}

export async function updateRunnerSettings(c: Container, actor: Actor, id: number, input: RunnerSettingsInput & { active?: boolean }): Promise<RunnerDetails> {
  const runner = await manageableRunner(c, actor, id);
  const paused = input.paused ?? (input.active === undefined ? undefined : !input.active);
  const patch = settingsPatch({ ...input, paused });
  const updated = (await updateRunner(c.db, runner.id, { ...patch, updated_at: nowIso() })) ?? runner;
  return runnerDetails(c, updated);
}

export async function deleteRunnerById(c: Container, actor: Actor, id: number): Promise<void> {
  const runner = await manageableRunner(c, actor, id);
  if (runner.id === BUILT_IN_RUNNER_ID) throw refused('The built-in runner cannot be deleted (ANVIL_RUNNER_ENABLED=false turns it off)');
  if (runner.runner_type === 'project_type' && (await runnerProjectIds(c.db, runner.id)).length > 1 && !canManageAllRunners(actor)) {
    throw forbidden('Only one project associated with the runner. Please remove the runner instead');
  }
  await deleteRunner(c.db, runner.id);
}

export async function runnerJobs(c: Container, actor: Actor, id: number, statuses: string[] | null, page: PageRequest): Promise<PageResult<JobRow>> {
  const runner = await manageableRunner(c, actor, id);
  return pageRunnerJobs(c.db, runner.id, statuses, page);
}

export async function resetRunnerTokenById(c: Container, actor: Actor, id: number): Promise<Registered> {
  const runner = await manageableRunner(c, actor, id);
  if (runner.id === BUILT_IN_RUNNER_ID) throw forbidden();
  return resetRunnerToken(c, runner);
}

/** `POST /projects/:id/runners`: assigns a project runner (not locked to its projects) the actor manages. */
export async function assignProjectRunner(c: Container, actor: Actor, idOrPath: number | string, runnerId: number): Promise<RunnerRow> {
  const found = await findProject(c, actor, idOrPath);
  if (!canManageProjectRunners(found.access)) throw forbidden();
  const runner = await manageableRunner(c, actor, runnerId).catch(() => {
    throw forbidden();
  });
  if (runner.runner_type !== 'project_type') throw badRequest('Runner is not a project runner');
  if (runner.locked === 1 && !canManageAllRunners(actor)) throw forbidden();
  const assigned = await runnerProjectIds(c.db, runner.id);
  if (assigned.includes(found.row.id)) throw badRequest('Runner was already enabled for this project');
  await assignRunnerProject(c.db, runner.id, found.row.id, nowIso());
  return runner;
}

/** `DELETE /projects/:id/runners/:runner_id`: unassigns; the project a runner belongs to alone cannot drop it. */
export async function unassignProjectRunner(c: Container, actor: Actor, idOrPath: number | string, runnerId: number): Promise<RunnerRow> {
  const found = await findProject(c, actor, idOrPath);
  if (!canManageProjectRunners(found.access)) throw forbidden();
  const runner = await findRunnerById(c.db, runnerId);
  const assigned = runner ? await runnerProjectIds(c.db, runner.id) : [];
  if (!runner || !assigned.includes(found.row.id)) throw RUNNER_NOT_FOUND();
  if (assigned.length === 1) throw forbidden('Only one project associated with the runner. Please remove the runner instead');
  await unassignRunnerProject(c.db, runner.id, found.row.id);
  return runner;
}

/** A project's or group's new registration token (the old one stops registering at once). */
export async function resetProjectRegistrationToken(c: Container, actor: Actor, idOrPath: number | string): Promise<string> {
  const found = await findProject(c, actor, idOrPath);
  if (!canManageProjectRunners(found.access)) throw forbidden();
  const { token, stored } = newRegistrationToken(c);
  await setProjectRunnersToken(c.db, found.row.id, stored);
  return token;
}

export async function resetGroupRegistrationToken(c: Container, actor: Actor, idOrPath: number | string): Promise<string> {
  const found = await findGroup(c, actor, idOrPath);
  if (!canManageGroupRunners(found.access)) throw forbidden();
  const { token, stored } = newRegistrationToken(c);
  await setGroupRunnersToken(c.db, found.row.id, stored);
  return token;
}

/** `POST /user/runners`: a runner created by a user, its token shown once (`gitlab-runner register --token`). */
export async function createUserRunner(
  c: Container,
  actor: Actor,
  input: RunnerSettingsInput & { runner_type: string; group_id?: number; project_id?: number },
): Promise<Registered> {
  if (input.runner_type === 'instance_type') {
    if (!canManageAllRunners(actor)) throw forbidden();
    return createRunnerRecord(c, { type: 'instance_type', groupId: null, projectId: null }, input, { registrationType: 'authenticated_user', creatorId: actor.user.id });
  }
  if (input.runner_type === 'group_type') {
    if (input.group_id === undefined) throw badRequest('group_id is missing');
    const found = await findGroup(c, actor, input.group_id);
    if (!canManageGroupRunners(found.access)) throw forbidden();
    return createRunnerRecord(c, { type: 'group_type', groupId: found.row.id, projectId: null }, input, { registrationType: 'authenticated_user', creatorId: actor.user.id });
  }
  if (input.project_id === undefined) throw badRequest('project_id is missing');
  const found = await findProject(c, actor, input.project_id);
  if (!canManageProjectRunners(found.access)) throw forbidden();
  return createRunnerRecord(c, { type: 'project_type', groupId: null, projectId: found.row.id }, input, { registrationType: 'authenticated_user', creatorId: actor.user.id });
}

