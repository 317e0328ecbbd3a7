// Protected branches: list, get, protect (with push / merge / unprotect entries), update the
// code-owner option, unprotect; and the default branch's protection on new projects.
import type { Container } from '../context.js';
import { findNamespaceById, findNamespacesByIds } from '../../db/repos/namespaces.js';
import { findGroupLink } from '../../db/repos/project_group_links.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import {
  accessEntriesOf,
  deleteProtectedBranch,
  findProtectedBranchByName,
  insertProtectedBranch,
  pageProtectedBranches,
  updateProtectedBranch,
  type NewAccessEntry,
  type ProtectedBranchRow,
} from '../../db/repos/protected_branches.js';
import { findUserById } from '../../db/repos/users.js';
import { actingAs, type Actor } from '../auth/actor.js';
import { conflict, forbidden, recordNotFound, unprocessable } from '../errors.js';
import { ACCESS } from '../members/policy.js';
import { canAdminProject, projectAccess } from '../projects/policy.js';
import { findProject } from '../projects/find.js';
import { getSettings } from '../settings/service.js';
import { checkUnmodifiedSince } from '../shared/preconditions.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { nowIso } from '../../shared/time.js';
import { HUMAN_ACCESS_LEVELS, type AccessKind, type AccessSpec } from './policy.js';

export interface AccessEntryView {
  access_level: number | null;
  access_level_description: string;
  user_id: number | null;
  group_id: number | null;
}

export interface ProtectedBranchView {
  row: ProtectedBranchRow;
  push: AccessEntryView[];
  merge: AccessEntryView[];
  unprotect: AccessEntryView[];
}

/** One requested entry of allowed_to_push / _merge / _unprotect. */
export interface AccessRequest {
  access_level?: number;
  user_id?: number;
  group_id?: number;
}

export interface ProtectInput {
  name: string;
  push_access_level?: number;
  merge_access_level?: number;
  unprotect_access_level?: number;
  allow_force_push?: boolean;
  code_owner_approval_required?: boolean;
  allowed_to_push?: AccessRequest[];
  allowed_to_merge?: AccessRequest[];
  allowed_to_unprotect?: AccessRequest[];
}


/** Protected branches and tags are for maintainers and above (the reference's authorize_admin_project). */
export async function managedProject(c: Container, actor: Actor, idOrPath: number | string): Promise<ProjectRow> {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  return row;
}

/**
 * Describes entries as the reference's humanize does (a user's or group's name, else the role's
 * words); reads each named user and group once.
 */
export async function entryDescriber(c: Container, entries: AccessSpec[]): Promise<(e: AccessSpec) => AccessEntryView> {
  const userIds = [...new Set(entries.flatMap((e) => (e.user_id !== null ? [e.user_id] : [])))];
  const groupIds = [...new Set(entries.flatMap((e) => (e.group_id !== null ? [e.group_id] : [])))];
  const users = new Map<number, string>();
  for (const id of userIds) {
    const u = await findUserById(c.db, id);
    if (u) users.set(id, u.name);
  }
  const groups = new Map((await findNamespacesByIds(c.db, groupIds)).map((g) => [g.id, g.name] as const));
  return (e) => ({
    access_level: e.access_level,
    access_level_description:
      e.user_id !== null ? (users.get(e.user_id) ?? '') : e.group_id !== null ? (groups.get(e.group_id) ?? '') : (HUMAN_ACCESS_LEVELS[e.access_level ?? 0] ?? ''),
    user_id: e.user_id,
    group_id: e.group_id,
  });
}

/** Rows with their entries, described. */
async function views(c: Container, rows: ProtectedBranchRow[]): Promise<ProtectedBranchView[]> {
  const entries = await accessEntriesOf(c.db, rows.map((r) => r.id));
  const describe = await entryDescriber(c, entries);
  return rows.map((row) => {
    const of = (kind: AccessKind) => entries.filter((e) => e.protected_branch_id === row.id && e.kind === kind).map(describe);
    return { row, push: of('push'), merge: of('merge'), unprotect: of('unprotect') };
  });
}

export async function listProtectedBranches(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  search: string | undefined,
  page: PageRequest,
): Promise<PageResult<ProtectedBranchView>> {
  const project = await managedProject(c, actor, idOrPath);
  const result = await pageProtectedBranches(c.db, project.id, search || undefined, page);
  return { ...result, items: await views(c, result.items) };
}

/** GET by the rule's own name: a branch name or the wildcard as written (`release/*`). */
export async function getProtectedBranch(c: Container, actor: Actor, idOrPath: number | string, name: string): Promise<ProtectedBranchView> {
  const project = await managedProject(c, actor, idOrPath);
  const row = await findProtectedBranchByName(c.db, project.id, name);
  if (!row) throw recordNotFound();
  return (await views(c, [row]))[0];
}

const LABEL: Record<AccessKind, string> = { push: 'Push access levels', merge: 'Merge access levels', unprotect: 'Unprotect access levels' };

/**
 * The entries of one kind, as the reference's AccessLevelParams builds them: the `<kind>_access_level`
 * role when given, else the default maintainer role unless `allowed_to_<kind>` lists entries;
 * then those entries. A user must be a member of the project, a group must have the project
 * shared with it; otherwise the reference's validation messages, starting with `label`
 * (`Push access levels`, `Create access levels`).
 */
export async function accessEntriesFromParams(
  c: Container,
  project: ProjectRow,
  label: string,
  level: number | undefined,
  allowed: AccessRequest[] | undefined,
  errors: string[],
): Promise<AccessSpec[]> {
  const out: AccessSpec[] = [];
  const list = allowed ?? [];
  if (level !== undefined) out.push({ access_level: level, user_id: null, group_id: null });
  else if (list.length === 0) out.push({ access_level: ACCESS.MAINTAINER, user_id: null, group_id: null });
  for (const a of list) {
    if (a.user_id !== undefined) {
      const user = await findUserById(c.db, a.user_id);
      const level = user ? (await projectAccess(c, actingAs(user), project)).level : 0;
      if (level <= ACCESS.NONE) errors.push(`${label} user is not a member of the project`);
      else out.push({ access_level: null, user_id: a.user_id, group_id: null });
    } else if (a.group_id !== undefined) {
      const group = await findNamespaceById(c.db, a.group_id);
      if (!group || !(await findGroupLink(c.db, project.id, a.group_id))) errors.push(`${label} group does not have access to the project`);
      else out.push({ access_level: null, user_id: null, group_id: a.group_id });
    } else if (a.access_level !== undefined) {
      if (!out.some((e) => e.access_level === a.access_level && e.user_id === null && e.group_id === null)) {
        out.push({ access_level: a.access_level, user_id: null, group_id: null });
      }
    }
  }
  return out;
}

async function entriesOf(
  c: Container,
  project: ProjectRow,
  kind: AccessKind,
  level: number | undefined,
  allowed: AccessRequest[] | undefined,
  errors: string[],
): Promise<NewAccessEntry[]> {
  return (await accessEntriesFromParams(c, project, LABEL[kind], level, allowed, errors)).map((e) => ({ ...e, kind }));
}

/** POST /projects/:id/protected_branches: 409 when the name is protected already (also under a race). */
export async function protectBranch(c: Container, actor: Actor, idOrPath: number | string, input: ProtectInput): Promise<ProtectedBranchView> {
  const project = await managedProject(c, actor, idOrPath);
  const duplicate = () => conflict(`Protected branch '${input.name}' already exists`);
  if (await findProtectedBranchByName(c.db, project.id, input.name)) throw duplicate();
  const errors: string[] = [];
  if (input.name.trim() === '') errors.push("Name can't be blank");
  const entries = [
    ...(await entriesOf(c, project, 'push', input.push_access_level, input.allowed_to_push, errors)),
    ...(await entriesOf(c, project, 'merge', input.merge_access_level, input.allowed_to_merge, errors)),
    ...(await entriesOf(c, project, 'unprotect', input.unprotect_access_level, input.allowed_to_unprotect, errors)),
  ];
  if (errors.length) throw unprocessable(errors);
  const now = nowIso();
  const row = await insertProtectedBranch(
    c.db,
    {
      project_id: project.id,
      name: input.name,
      allow_force_push: input.allow_force_push ? 1 : 0,
      code_owner_approval_required: input.code_owner_approval_required ? 1 : 0,
      created_at: now,
      updated_at: now,
    },
    entries,
  );
  if (!row) throw duplicate();
  return (await views(c, [row]))[0];
}

/** PATCH /projects/:id/protected_branches/:name: the code-owner option (false when not given, as the reference's default). */
export async function updateProtectedBranchOptions(
  c: Container,
  actor: Actor,
  idOrPath: number | string,
  name: string,
  input: { code_owner_approval_required?: boolean },
): Promise<ProtectedBranchView> {
  const project = await managedProject(c, actor, idOrPath);
  const row = await findProtectedBranchByName(c.db, project.id, name);
  if (!row) throw recordNotFound();
  const updated = await updateProtectedBranch(c.db, row.id, { code_owner_approval_required: input.code_owner_approval_required ? 1 : 0, updated_at: nowIso() });
  return (await views(c, [updated]))[0];
}

/** DELETE /projects/:id/protected_branches/:name (If-Unmodified-Since honoured). */
export async function unprotectBranch(c: Container, actor: Actor, idOrPath: number | string, name: string, ifUnmodifiedSince: Date | null): Promise<void> {
  const project = await managedProject(c, actor, idOrPath);
  const row = await findProtectedBranchByName(c.db, project.id, name);
  if (!row) throw recordNotFound();
  checkUnmodifiedSince(row.updated_at, ifUnmodifiedSince);
  await deleteProtectedBranch(c.db, row.id);
}

/**
 * A new project's default branch protection, as the reference's ProtectDefaultBranchService:
 * the namespace's own default_branch_protection when a group sets it, else the instance
 * setting. 0 none; 1 developers push and merge; 2 maintainers only; 3 developers merge,
 * maintainers push.
 */
export async function protectDefaultBranch(c: Container, project: ProjectRow): Promise<void> {
  if (!project.default_branch) return;
  const ns = project.namespace_id !== null ? await findNamespaceById(c.db, project.namespace_id) : undefined;
  const level = ns?.default_branch_protection ?? (await getSettings(c)).default_branch_protection;
  if (!level) return;
  const push = level === 1 ? ACCESS.DEVELOPER : ACCESS.MAINTAINER;
  const merge = level === 1 || level === 3 ? ACCESS.DEVELOPER : ACCESS.MAINTAINER;
  const now = nowIso();
  await insertProtectedBranch(
    c.db,
    { project_id: project.id, name: project.default_branch, created_at: now, updated_at: now },
    [
      { kind: 'push', access_level: push, user_id: null, group_id: null },
      { kind: 'merge', access_level: merge, user_id: null, group_id: null },
    ],
  );
}
