// Milestones of projects and groups: list, get, create, change (close and reopen through
// state_event), delete, promote a project milestone to its group. One milestone per issue or
// merge request: they hold its id.
import { dateTimeParam } from '../shared/params.js';
import type { Container } from '../context.js';
import {
  deleteMilestone, findMilestoneOf, insertMilestone, milestonesByIds, pageMilestones, projectMilestonesTitled, updateMilestone,
  type MilestoneFilter, type MilestoneOwners, type MilestoneRow,
} from '../../db/repos/milestones.js';
import { moveIssuesToMilestone } from '../../db/repos/issues.js';
import { findNamespaceById, findNamespacesByIds, findSelfAndDescendants, type NamespaceRow } from '../../db/repos/namespaces.js';
import { projectIdsInNamespaces } from '../../db/repos/project_lifecycle.js';
import { findProjectsByIds, type ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { apiError, forbidden, notFound } from '../errors.js';
import { findGroup } from '../groups/find.js';
import { groupAccess, selfAndAncestorIds } from '../members/policy.js';
import { findProject } from '../projects/find.js';
import { ensureWritable } from '../projects/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { isDate, nowIso, today } from '../../shared/time.js';
import { canAdminGroupMilestones, canAdminProjectMilestones, canReadProjectMilestones } from './policy.js';

export type MilestoneParentType = 'project' | 'group';

export interface MilestoneView {
  row: MilestoneRow;
  /** The full path of its project or group (its web_url). */
  parentPath: string;
  expired: boolean;
}

interface Parent {
  project: ProjectRow | null;
  group: NamespaceRow | null;
  canAdmin: boolean;
}

async function findParent(c: Container, actor: Actor | null, type: MilestoneParentType, idOrPath: number | string): Promise<Parent> {
  if (type === 'project') {
    const { row, access } = await findProject(c, actor, idOrPath);
    if (!canReadProjectMilestones(row, access)) throw forbidden();
    return { project: row, group: null, canAdmin: canAdminProjectMilestones(access) };
  }
  const { row, access } = await findGroup(c, actor, idOrPath);
  return { project: null, group: row, canAdmin: canAdminGroupMilestones(access) };
}

async function managedParent(c: Container, actor: Actor, type: MilestoneParentType, idOrPath: number | string): Promise<Parent> {
  const p = await findParent(c, actor, type, idOrPath);
  if (!p.canAdmin) throw forbidden();
  if (p.project) ensureWritable(p.project);
  return p;
}

const ownOwners = (p: Parent): MilestoneOwners => (p.project ? { projectIds: [p.project.id], groupIds: [] } : { projectIds: [], groupIds: [p.group!.id] });

/** The milestones a project's issues may take: its own and those of its groups. */
export async function projectMilestoneOwners(c: Container, project: ProjectRow): Promise<MilestoneOwners> {
  const ns = await findNamespaceById(c.db, project.namespace_id);
  return { projectIds: [project.id], groupIds: ns && ns.kind === 'group' ? await selfAndAncestorIds(c, ns) : [] };
}

/** Milestones with the paths of their projects and groups, read at once. */
export async function milestoneViews(c: Container, rows: MilestoneRow[]): Promise<MilestoneView[]> {
  const projects = new Map((await findProjectsByIds(c.db, [...new Set(rows.flatMap((r) => (r.project_id !== null ? [r.project_id] : [])))])).map((p) => [p.id, p.full_path]));
  const groups = new Map((await findNamespacesByIds(c.db, [...new Set(rows.flatMap((r) => (r.group_id !== null ? [r.group_id] : [])))])).map((g) => [g.id, g.full_path]));
  const day = today();
  return rows.map((row) => ({
    row,
    parentPath: (row.project_id !== null ? projects.get(row.project_id) : groups.get(row.group_id!)) ?? '',
    expired: row.due_date !== null && row.due_date < day,
  }));
}

export async function milestoneViewsByIds(c: Container, ids: number[]): Promise<Map<number, MilestoneView>> {
  return new Map((await milestoneViews(c, await milestonesByIds(c.db, ids))).map((v) => [v.row.id, v]));
}

export interface MilestoneListInput {
  state?: 'active' | 'closed' | 'all';
  iids?: number[];
  title?: string;
  search?: string;
  include_parent_milestones?: boolean;
  include_ancestors?: boolean;
  include_descendants?: boolean;
  updated_before?: string;
  updated_after?: string;
}

export async function listMilestones(
  c: Container,
  actor: Actor,
  type: MilestoneParentType,
  idOrPath: number | string,
  input: MilestoneListInput,
  page: PageRequest,
): Promise<PageResult<MilestoneView>> {
  const p = await findParent(c, actor, type, idOrPath);
  const withParents = input.include_parent_milestones || input.include_ancestors;
  let owners = ownOwners(p);
  if (p.project && withParents) owners = await projectMilestoneOwners(c, p.project);
  if (p.group) {
    let groupIds = withParents ? await selfAndAncestorIds(c, p.group) : [p.group.id];
    if (input.include_descendants) {
      const below = (await findSelfAndDescendants(c.db, p.group)).filter((g) => g.id !== p.group!.id);
      for (const g of below) if ((await groupAccess(c, actor, g)).canRead) groupIds = [...groupIds, g.id];
    }
    // Parent groups the caller may not see are left out.
    const visible: number[] = [];
    for (const g of await findNamespacesByIds(c.db, groupIds)) if (g.id === p.group.id || (await groupAccess(c, actor, g)).canRead) visible.push(g.id);
    owners = { projectIds: [], groupIds: visible };
  }
  const filter: MilestoneFilter = {
    state: input.state === 'active' || input.state === 'closed' ? input.state : undefined,
    iids: input.iids,
    title: input.title,
    search: input.search,
    updatedBefore: dateTimeParam('updated_before', input.updated_before),
    updatedAfter: dateTimeParam('updated_after', input.updated_after),
  };
  const result = await pageMilestones(c.db, owners, filter, page);
  return { ...result, items: await milestoneViews(c, result.items) };
}

async function findIn(c: Container, p: Parent, id: number): Promise<MilestoneRow> {
  const row = await findMilestoneOf(c.db, ownOwners(p), id);
  if (!row) throw notFound('Milestone');
  return row;
}

export async function getMilestone(c: Container, actor: Actor, type: MilestoneParentType, idOrPath: number | string, id: number): Promise<MilestoneView> {
  const p = await findParent(c, actor, type, idOrPath);
  return (await milestoneViews(c, [await findIn(c, p, id)]))[0];
}

/** A milestone the actor may read, with its parent: what the milestone's issue and merge request lists start from. */
export async function readableMilestone(c: Container, actor: Actor, type: MilestoneParentType, idOrPath: number | string, id: number) {
  const p = await findParent(c, actor, type, idOrPath);
  return { milestone: await findIn(c, p, id), project: p.project, group: p.group };
}

export interface MilestoneInput {
  title?: string;
  description?: string;
  due_date?: string;
  start_date?: string;
  state_event?: 'close' | 'activate';
}

/** Ruby's inspect of a validation error hash, as the reference puts it in "Failed to … milestone {…}". */
const rubyErrors = (errors: Record<string, string[]>): string =>
  `{${Object.entries(errors)
    .map(([k, v]) => `:${k}=>[${v.map((m) => JSON.stringify(m)).join(', ')}]`)
    .join(', ')}}`;

function checkDates(row: { start_date: string | null; due_date: string | null }, errors: Record<string, string[]>): void {
  if (row.start_date && row.due_date && row.due_date < row.start_date) errors.due_date = ['must be greater than start date'];
}

/** A date parameter as the model keeps it: a date, or nothing for anything else. */
const dateOrNull = (v: string | undefined): string | null => (v && isDate(v) ? v : null);

export async function createMilestone(c: Container, actor: Actor, type: MilestoneParentType, idOrPath: number | string, input: MilestoneInput): Promise<MilestoneView> {
  const p = await managedParent(c, actor, type, idOrPath);
  const errors: Record<string, string[]> = {};
  const title = (input.title ?? '').trim();
  if (title === '') errors.title = ["can't be blank"];
  const dates = { start_date: dateOrNull(input.start_date), due_date: dateOrNull(input.due_date) };
  checkDates(dates, errors);
  if (Object.keys(errors).length) throw apiError(`Failed to create milestone ${rubyErrors(errors)}`, 400);
  const now = nowIso();
  const row = await insertMilestone(c.db, {
    project_id: p.project?.id ?? null,
    group_id: p.group?.id ?? null,
    title,
    description: input.description ?? null,
    ...dates,
    created_at: now,
    updated_at: now,
  });
  if (!row) throw apiError(`Failed to create milestone ${rubyErrors({ title: ['has already been taken'] })}`, 400);
  return (await milestoneViews(c, [row]))[0];
}

export async function changeMilestone(
  c: Container,
  actor: Actor,
  type: MilestoneParentType,
  idOrPath: number | string,
  id: number,
  input: MilestoneInput,
): Promise<MilestoneView> {
  const p = await managedParent(c, actor, type, idOrPath);
  const row = await findIn(c, p, id);
  const patch: Partial<MilestoneRow> = {};
  const errors: Record<string, string[]> = {};
  if (input.title !== undefined) {
    if (input.title.trim() === '') errors.title = ["can't be blank"];
    else patch.title = input.title.trim();
  }
  if (input.description !== undefined) patch.description = input.description;
  if (input.due_date !== undefined) patch.due_date = dateOrNull(input.due_date);
  if (input.start_date !== undefined) patch.start_date = dateOrNull(input.start_date);
  if (input.state_event === 'close') patch.state = 'closed';
  if (input.state_event === 'activate') patch.state = 'active';
  checkDates({ start_date: patch.start_date !== undefined ? patch.start_date : row.start_date, due_date: patch.due_date !== undefined ? patch.due_date : row.due_date }, errors);
  if (Object.keys(errors).length) throw apiError(`Failed to update milestone ${rubyErrors(errors)}`, 400);
  const updated = await updateMilestone(c.db, row.id, { ...patch, updated_at: nowIso() });
  if (!updated) throw apiError(`Failed to update milestone ${rubyErrors({ title: ['has already been taken'] })}`, 400);
  return (await milestoneViews(c, [updated]))[0];
}

/** DELETE: its issues and merge requests keep no milestone. */
export async function removeMilestone(c: Container, actor: Actor, type: MilestoneParentType, idOrPath: number | string, id: number): Promise<void> {
  const p = await managedParent(c, actor, type, idOrPath);
  const row = await findIn(c, p, id);
  await moveIssuesToMilestone(c.db, [row.id], null);
  await deleteMilestone(c.db, row.id);
}

/**
 * POST /projects/:id/milestones/:milestone_id/promote: the milestone becomes its group's; the
 * group's projects' milestones of that title merge into it (their issues move over).
 */
export async function promoteMilestone(c: Container, actor: Actor, idOrPath: number | string, id: number): Promise<void> {
  const p = await managedParent(c, actor, 'project', idOrPath);
  const project = p.project!;
  const ns = await findNamespaceById(c.db, project.namespace_id);
  if (!ns || ns.kind !== 'group') throw apiError('Project does not belong to a group.', 400);
  if (!canAdminGroupMilestones(await groupAccess(c, actor, ns))) throw forbidden();
  const row = await findIn(c, p, id);
  const now = nowIso();
  const groupMilestone = await insertMilestone(c.db, {
    project_id: null,
    group_id: ns.id,
    title: row.title,
    description: row.description,
    state: row.state,
    due_date: row.due_date,
    start_date: row.start_date,
    created_at: now,
    updated_at: now,
  });
  if (!groupMilestone) throw apiError('Promotion failed - Title has already been taken', 400);
  const same = await projectMilestonesTitled(c.db, await projectIdsInNamespaces(c.db, [ns.id]), row.title);
  await moveIssuesToMilestone(c.db, same.map((m) => m.id), groupMilestone.id);
  for (const m of same) await deleteMilestone(c.db, m.id);
}
