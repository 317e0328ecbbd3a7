import { Type as T } from '@sinclair/typebox';
import { MEMBER_LEVELS, VISIBILITY_NAMES } from '../../domain/members/policy.js';
import { CustomAttributesField, CustomAttributesFilterParam } from '../custom_attributes/schemas.js';
import { ProjectAny } from '../projects/schemas.js';
import { CommaList, DateOnly, IdOrPath, Nullable, OneOf, Timestamp } from '../schemas.js';

/** An integer parameter limited to the given values (errors read "does not have a valid value"). */
export const IntOneOf = (values: readonly number[], opts: object = {}) => T.Unsafe<number>({ ...T.Integer(opts), enum: [...values] });

/** The reference's Group entity (15.1, without the paid-tier fields). */
const groupFields = {
  id: T.Integer(),
  web_url: T.String(),
  name: T.String(),
  path: T.String(),
  description: T.String(),
  visibility: T.String(),
  share_with_group_lock: T.Boolean(),
  require_two_factor_authentication: T.Boolean(),
  two_factor_grace_period: T.Integer(),
  project_creation_level: T.String(),
  auto_devops_enabled: Nullable(T.Boolean()),
  subgroup_creation_level: T.String(),
  emails_disabled: Nullable(T.Boolean()),
  mentions_disabled: Nullable(T.Boolean()),
  lfs_enabled: T.Boolean(),
  default_branch_protection: T.Integer(),
  avatar_url: Nullable(T.String()),
  request_access_enabled: T.Boolean(),
  full_name: T.String(),
  full_path: T.String(),
  created_at: Timestamp,
  parent_id: Nullable(T.Integer()),
  /** Only with `with_custom_attributes` (admins). */
  custom_attributes: CustomAttributesField,
};
export const Group = T.Object(groupFields);

/** GroupDetail: Group plus sharing, the runners token (owners, admins) and, when asked, projects. */
export const GroupDetail = T.Object({
  ...groupFields,
  shared_with_groups: T.Array(T.Any()),
  runners_token: T.Optional(T.String()),
  prevent_sharing_groups_outside_hierarchy: T.Optional(T.Boolean()),
  /** Up to 100 each, as the projects API shows them to the caller. */
  projects: T.Optional(T.Array(ProjectAny)),
  shared_projects: T.Optional(T.Array(ProjectAny)),
});

export const GroupIdParam = { id: IdOrPath };

export const ListGroupsParams = {
  statistics: T.Optional(T.Boolean()),
  skip_groups: T.Optional(CommaList(T.Integer())),
  all_available: T.Optional(T.Boolean()),
  visibility: T.Optional(OneOf(VISIBILITY_NAMES)),
  search: T.Optional(T.String()),
  owned: T.Optional(T.Boolean({ default: false })),
  order_by: T.Optional(OneOf(['name', 'path', 'id', 'similarity'] as const, { default: 'name' })),
  sort: T.Optional(OneOf(['asc', 'desc'] as const, { default: 'asc' })),
  min_access_level: T.Optional(IntOneOf(MEMBER_LEVELS)),
  top_level_only: T.Optional(T.Boolean()),
  with_custom_attributes: T.Optional(T.Boolean()),
  custom_attributes: CustomAttributesFilterParam,
};

const settingsParams = {
  description: T.Optional(T.String()),
  visibility: T.Optional(OneOf(VISIBILITY_NAMES)),
  share_with_group_lock: T.Optional(T.Boolean()),
  require_two_factor_authentication: T.Optional(T.Boolean()),
  two_factor_grace_period: T.Optional(T.Integer()),
  project_creation_level: T.Optional(OneOf(['noone', 'maintainer', 'developer'] as const)),
  auto_devops_enabled: T.Optional(T.Boolean()),
  subgroup_creation_level: T.Optional(OneOf(['owner', 'maintainer'] as const)),
  emails_disabled: T.Optional(T.Boolean()),
  mentions_disabled: T.Optional(T.Boolean()),
  lfs_enabled: T.Optional(T.Boolean()),
  request_access_enabled: T.Optional(T.Boolean()),
  default_branch_protection: T.Optional(IntOneOf([0, 1, 2, 3])),
};

export const CreateGroupParams = {
  name: T.String(),
  path: T.String(),
  parent_id: T.Optional(T.Integer()),
  ...settingsParams,
};

export const UpdateGroupParams = {
  ...GroupIdParam,
  name: T.Optional(T.String()),
  path: T.Optional(T.String()),
  ...settingsParams,
  prevent_sharing_groups_outside_hierarchy: T.Optional(T.Boolean()),
};

// ---- group access tokens ----
