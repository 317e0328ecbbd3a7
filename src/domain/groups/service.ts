// Groups: one function per operation. A group is a `namespaces` row with kind 'group'.
import type { Container } from '../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import { deleteBotUsers, groupBotUserIds, pageGroups, type GroupListFilter } from '../../db/repos/groups.js';
import { destroyProjectsInNamespaces } from '../projects/lifecycle.js';
import { insertMember } from '../../db/repos/members.js';
import {
  deleteNamespaces,
  findNamespaceByFullPath,
  findNamespaceById,
  findSelfAndDescendants,
  hasSibling,
  insertNamespace,
  updateNamespaceTree,
  type NamespaceRow,
} from '../../db/repos/namespaces.js';
import type { NamespacesTable } from '../../db/schema.js';
import type { Updateable } from 'kysely';
import { isAdmin, type Actor } from '../auth/actor.js';
import { apiError, forbidden, validation } from '../errors.js';
import {
  ACCESS,
  VISIBILITY,
  canCreateGroup,
  canCreateSubgroup,
  groupIdsAtOrBelow,
  relatedGroupIds,
  visibilityName,
  visibleLevelsFor,
  type VisibilityName,
} from '../members/policy.js';
import type { PageRequest, PageResult } from '../../shared/page.js';
import { newRegistrationToken, openRegistrationToken } from '../runners/registration_tokens.js';
import { nowIso } from '../../shared/time.js';
import { findGroup, withFullNames, type GroupView } from './find.js';
import { nameErrors, pathErrors, rubyErrorsInspect } from './validation.js';
import { customAttributeFilter, withCustomAttributes } from '../custom_attributes/lists.js';
import { defaultGroupVisibility, visibilityRestrictionError } from '../settings/visibility.js';
import { inTransaction } from '../../db/transaction.js';
import { groupSystemEvent, memberSystemEvent } from '../hooks/events.js';

export interface GroupDetailView extends GroupView {
  /** The runner registration token is shown to those who administer the group. */
  runnersToken: string | null;
  /** `projects` and `shared_projects` are part of the answer (empty until projects exist). */
  withProjects: boolean;
}

async function detail(c: Container, row: NamespaceRow, canAdmin: boolean, withProjects: boolean): Promise<GroupDetailView> {
  const [view] = await withFullNames(c, [row]);
  return { ...view, runnersToken: canAdmin ? openRegistrationToken(c, row.runners_token) : null, withProjects };
}

// ---- lists ----

export interface ListGroupsInput {
  search?: string;
  owned?: boolean;
  min_access_level?: number;
  all_available?: boolean;
  top_level_only?: boolean;
  skip_groups?: number[];
  visibility?: VisibilityName;
  order_by: 'name' | 'path' | 'id';
  sort: 'asc' | 'desc';
  custom_attributes?: Record<string, unknown>;
  with_custom_attributes?: boolean;
}

/**
 * GET /groups, /groups/:id/subgroups and /groups/:id/descendant_groups, as the reference's
 * groups finder: anonymous callers see public groups; signed-in users the groups they are related
 * to by membership, plus every group visible to them with all_available (the default for admins).
 */
export async function listGroups(
  c: Container,
  actor: Actor | null,
  input: ListGroupsInput,
  page: PageRequest,
  scope: { parent?: number | string; descendants?: boolean } = {},
): Promise<PageResult<GroupView>> {
  const parent = scope.parent !== undefined ? (await findGroup(c, actor, scope.parent)).row : null;
  const admin = isAdmin(actor);
  const allAvailable = input.all_available ?? admin;

  let visible: GroupListFilter['visible'];
  let onlyIds: number[] | null = null;
  if (!actor) {
    visible = { all: false, minVisibility: VISIBILITY.public, ids: [] };
  } else if (input.owned || input.min_access_level !== undefined) {
    // Groups where the user holds (directly) at least this role, and the groups below them.
    const min = input.owned ? ACCESS.OWNER : input.min_access_level!;
    visible = { all: true };
    onlyIds = await groupIdsAtOrBelow(c, actor.user.id, min);
  } else if (admin && allAvailable) {
    visible = { all: true };
  } else {
    const related = await relatedGroupIds(c, actor.user.id);
    const min = allAvailable ? Math.min(...visibleLevelsFor(actor)) : null;
    visible = { all: false, minVisibility: min, ids: related };
  }

  const filter: GroupListFilter = {
    visible,
    onlyIds,
    search: input.search || undefined,
    skipIds: input.skip_groups,
    visibility: input.visibility !== undefined ? VISIBILITY[input.visibility] : undefined,
    orderBy: input.order_by,
    sort: input.sort,
    customAttributes: customAttributeFilter(actor, input.custom_attributes),
  };
  if (parent && scope.descendants) filter.below = parent.full_path_lower;
  else if (parent) filter.parentId = parent.id;
  else if (input.top_level_only) filter.parentId = null;

  const result = await pageGroups(c.db, filter, page);
  const items = await withFullNames(c, result.items);
  return { ...result, items: await withCustomAttributes(c, actor, 'group', items, input.with_custom_attributes, (g) => g.row.id) };
}

export async function getGroup(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  withProjects: boolean,
  opts: { withCustomAttributes?: boolean } = {},
): Promise<GroupDetailView> {
  const { row, access } = await findGroup(c, actor, idOrPath);
  const v = await detail(c, row, access.canAdmin, withProjects);
  return (await withCustomAttributes(c, actor, 'group', [v], opts.withCustomAttributes, (g) => g.row.id))[0];
}

// ---- create / update ----

export interface GroupSettingsInput {
  description?: string;
  visibility?: VisibilityName;
  share_with_group_lock?: boolean;
  require_two_factor_authentication?: boolean;
  two_factor_grace_period?: number;
  project_creation_level?: 'noone' | 'maintainer' | 'developer';
  auto_devops_enabled?: boolean;
  subgroup_creation_level?: 'owner' | 'maintainer';
  emails_disabled?: boolean;
  mentions_disabled?: boolean;
  lfs_enabled?: boolean;
  request_access_enabled?: boolean;
  default_branch_protection?: number;
  prevent_sharing_groups_outside_hierarchy?: boolean;
}

export interface CreateGroupInput extends GroupSettingsInput {
  name: string;
  path: string;
  parent_id?: number;
}

const bit = (b: boolean | undefined) => (b === undefined ? undefined : b ? 1 : 0);

function settingsPatch(i: GroupSettingsInput): Updateable<NamespacesTable> {
  const patch: Updateable<NamespacesTable> = {
    description: i.description,
    visibility_level: i.visibility !== undefined ? VISIBILITY[i.visibility] : undefined,
    share_with_group_lock: bit(i.share_with_group_lock),
    require_two_factor_authentication: bit(i.require_two_factor_authentication),
    two_factor_grace_period: i.two_factor_grace_period,
    project_creation_level: i.project_creation_level,
    auto_devops_enabled: bit(i.auto_devops_enabled),
    subgroup_creation_level: i.subgroup_creation_level,
    emails_disabled: bit(i.emails_disabled),
    mentions_disabled: bit(i.mentions_disabled),
    lfs_enabled: bit(i.lfs_enabled),
    request_access_enabled: bit(i.request_access_enabled),
    default_branch_protection: i.default_branch_protection,
    prevent_sharing_groups_outside_hierarchy: bit(i.prevent_sharing_groups_outside_hierarchy),
  };
  for (const k of Object.keys(patch) as (keyof typeof patch)[]) if (patch[k] === undefined) delete patch[k];
  return patch;
}

/** The model validations of a group about to be saved, keyed as the reference keys them. */
async function groupErrors(
  c: Container,
  g: { self: NamespaceRow | null; name: string; path: string; parent: NamespaceRow | null; visibility: number; nameChanged: boolean; pathChanged: boolean },
): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, msgs: string[]) => {
    if (msgs.length) errors[k] = [...(errors[k] ?? []), ...msgs];
  };
  if (g.nameChanged) {
    add('name', nameErrors(g.name));
    if (!errors.name && g.parent && (await hasSibling(c.db, g.parent.id, 'name', g.name, g.self?.id ?? null))) add('name', ['has already been taken']);
  }
  if (g.pathChanged) {
    add('path', pathErrors(g.path, g.parent === null));
    if (!errors.path) {
      const full = g.parent ? `${g.parent.full_path}/${g.path}` : g.path;
      const clash = await findNamespaceByFullPath(c.db, full);
      if (clash && clash.id !== g.self?.id) add('path', ['has already been taken']);
    }
  }
  if (g.parent && g.visibility > g.parent.visibility_level) {
    add('visibility_level', [`${visibilityName(g.visibility)} is not allowed since the parent group has a ${visibilityName(g.parent.visibility_level)} visibility.`]);
  }
  if (g.self && g.visibility < g.self.visibility_level) {
    const below = (await findSelfAndDescendants(c.db, g.self)).filter((r) => r.id !== g.self!.id);
    if (below.some((r) => r.visibility_level > g.visibility)) {
      add('visibility_level', [`${visibilityName(g.visibility)} is not allowed since there are sub-groups with higher visibility.`]);
    }
  }
  return errors;
}

/** POST /groups: the creator becomes the group's owner. */
export async function createGroup(c: Container, actor: Actor, input: CreateGroupInput): Promise<GroupDetailView> {
  let parent: NamespaceRow | null = null;
  if (input.parent_id !== undefined) {
    const found = await findGroup(c, actor, input.parent_id);
    if (!canCreateSubgroup(found.row, found.access)) throw forbidden();
    parent = found.row;
  } else if (!canCreateGroup(actor)) {
    throw forbidden();
  }
  // An explicit level must not be restricted (checked alone, as the reference's create service
  // does); the instance default is lowered to fit under a parent instead.
  if (input.visibility !== undefined) {
    const restricted = await visibilityRestrictionError(c, actor, VISIBILITY[input.visibility]);
    if (restricted) throw saveFailed({ visibility_level: [restricted] });
  }
  const fallback = Math.min(await defaultGroupVisibility(c), parent ? parent.visibility_level : VISIBILITY.public);
  const visibility = input.visibility !== undefined ? VISIBILITY[input.visibility] : fallback;
  const errors = await groupErrors(c, { self: null, name: input.name, path: input.path, parent, visibility, nameChanged: true, pathChanged: true });
  if (Object.keys(errors).length) throw saveFailed(errors);

  const now = nowIso();
  const fullPath = parent ? `${parent.full_path}/${input.path}` : input.path;
  let row: NamespaceRow;
  try {
    row = await inTransaction(c.db, async (tx) => {
      const group = await insertNamespace(tx, {
        kind: 'group',
        name: input.name,
        path: input.path,
        full_path: fullPath,
        full_path_lower: fullPath.toLowerCase(),
        parent_id: parent?.id ?? null,
        created_at: now,
        updated_at: now,
        ...newRegistrationToken(c).stored,
        ...settingsPatch({ ...input, visibility: undefined }),
        visibility_level: visibility,
      });
      const owner = await insertMember(tx, {
        source_type: 'Namespace',
        source_id: group.id,
        user_id: actor.user.id,
        access_level: ACCESS.OWNER,
        expires_at: null,
        created_by_id: actor.user.id,
        created_at: now,
        updated_at: now,
      });
      await groupSystemEvent(c, tx, 'group_create', group);
      await memberSystemEvent(c, tx, 'add', owner);
      return group;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw saveFailed({ path: ['has already been taken'] });
    throw err;
  }
  // The reference's create response is GroupDetail without projects or the runners token.
  return detail(c, row, false, false);
}

/** The reference answers a failed group creation with the model errors inspected into its message. */
const saveFailed = (errors: Record<string, string[]>) => apiError(`Failed to save group ${rubyErrorsInspect(errors)}`);

export interface UpdateGroupInput extends GroupSettingsInput {
  name?: string;
  path?: string;
}

/** PUT /groups/:id (owners and admins). A new path moves the full paths of every group below. */
export async function updateGroup(c: Container, actor: Actor, idOrPath: number | string, input: UpdateGroupInput): Promise<GroupDetailView> {
  const { row, access } = await findGroup(c, actor, idOrPath);
  if (!access.canAdmin) throw forbidden();
  const parent = row.parent_id !== null ? ((await findNamespaceById(c.db, row.parent_id)) ?? null) : null;
  const name = input.name ?? row.name;
  const path = input.path ?? row.path;
  const visibility = input.visibility !== undefined ? VISIBILITY[input.visibility] : row.visibility_level;
  // Only a change of level is checked against the restricted levels (valid_visibility_level_change?).
  const restricted = visibility === row.visibility_level ? null : await visibilityRestrictionError(c, actor, visibility);
  if (restricted) throw validation({ visibility_level: [restricted] });
  const errors = await groupErrors(c, {
    self: row,
    name,
    path,
    parent,
    visibility,
    nameChanged: name !== row.name,
    pathChanged: path !== row.path,
  });
  if (Object.keys(errors).length) throw validation(errors);

  const patch: Updateable<NamespacesTable> = { ...settingsPatch(input), name, path, updated_at: nowIso() };
  if (path !== row.path) {
    patch.full_path = parent ? `${parent.full_path}/${path}` : path;
    patch.full_path_lower = patch.full_path.toLowerCase();
  }
  let updated: NamespaceRow;
  try {
    updated = await inTransaction(c.db, async (tx) => {
      const u = await updateNamespaceTree(tx, row, patch);
      if (u.path !== row.path) await groupSystemEvent(c, tx, 'group_rename', u, { path: row.path, fullPath: row.full_path });
      return u;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw validation({ path: ['has already been taken'] });
    throw err;
  }
  return detail(c, updated, true, true);
}

/** DELETE /groups/:id (owners and admins): the group, every group below it, their memberships and bots. */
export async function deleteGroup(c: Container, actor: Actor, idOrPath: number | string): Promise<void> {
  const { row, access } = await findGroup(c, actor, idOrPath);
  if (!access.canAdmin) throw forbidden();
  const groups = await findSelfAndDescendants(c.db, row);
  const ids = groups.map((r) => r.id);
  const bots = await groupBotUserIds(c.db, ids);
  await destroyProjectsInNamespaces(c, actor, ids);
  await inTransaction(c.db, async (tx) => {
    for (const g of groups) await groupSystemEvent(c, tx, 'group_destroy', g);
    await deleteNamespaces(tx, ids);
  });
  await deleteBotUsers(c.db, bots);
}
