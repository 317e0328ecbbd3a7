import type { Static } from '@sinclair/typebox';
import type { Container } from '../../domain/context.js';
import type { NamespaceRow } from '../../db/repos/namespaces.js';
import type { GroupDetailView } from '../../domain/groups/service.js';
import type { GroupView } from '../../domain/groups/find.js';
import { visibilityName } from '../../domain/members/policy.js';
import { today } from '../../shared/time.js';
import type { Group, GroupDetail } from './schemas.js';
import { presentProject } from '../projects/present.js';
import type { ProjectView } from '../../domain/projects/service.js';

const bool = (n: number) => n === 1;
const boolOrNull = (n: number | null) => (n === null ? null : n === 1);

export const groupWebUrl = (c: Container, g: NamespaceRow) => `${c.config.externalUrl}/groups/${g.full_path}`;
export const groupAvatarUrl = (c: Container, g: NamespaceRow) =>
  g.avatar_path ? `${c.config.externalUrl}/uploads/-/system/group/avatar/${g.id}/${g.avatar_path}` : null;

export function presentGroup(c: Container, { row: g, fullName, customAttributes }: GroupView): Static<typeof Group> {
  return {
    id: g.id,
    web_url: groupWebUrl(c, g),
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: visibilityName(g.visibility_level),
    share_with_group_lock: bool(g.share_with_group_lock),
    require_two_factor_authentication: bool(g.require_two_factor_authentication),
    two_factor_grace_period: g.two_factor_grace_period,
    project_creation_level: g.project_creation_level,
    auto_devops_enabled: boolOrNull(g.auto_devops_enabled),
    subgroup_creation_level: g.subgroup_creation_level,
    emails_disabled: bool(g.emails_disabled),
    mentions_disabled: bool(g.mentions_disabled),
    lfs_enabled: bool(g.lfs_enabled),
    // unset means the instance default (full protection)
    default_branch_protection: g.default_branch_protection ?? 2,
    avatar_url: groupAvatarUrl(c, g),
    request_access_enabled: bool(g.request_access_enabled),
    full_name: fullName,
    full_path: g.full_path,
    created_at: g.created_at,
    parent_id: g.parent_id,
    ...(customAttributes ? { custom_attributes: customAttributes } : {}),
  };
}

/** A group's detail; `listed`: its projects and the projects shared with it, when the answer has them (with_projects). */
export function presentGroupDetail(c: Container, v: GroupDetailView, listed: { projects: ProjectView[]; shared: ProjectView[] } | null = null): Static<typeof GroupDetail> {
  return {
    ...presentGroup(c, v),
    shared_with_groups: [],
    ...(v.runnersToken !== null ? { runners_token: v.runnersToken } : {}),
    ...(v.row.parent_id === null ? { prevent_sharing_groups_outside_hierarchy: bool(v.row.prevent_sharing_groups_outside_hierarchy) } : {}),
    ...(listed ? { projects: listed.projects.map((p) => presentProject(c, p)), shared_projects: listed.shared.map((p) => presentProject(c, p)) } : {}),
  };
}
