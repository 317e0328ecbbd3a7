// The Protected branch resource (spec "Protected branch"; the reference's Entities::ProtectedBranch
// with Entities::ProtectedRefAccess entries).
import { Type as T } from '@sinclair/typebox';
import { ALLOWED_ACCESS_LEVELS } from '../../domain/protected_branches/policy.js';
import { IntOneOf } from '../groups/schemas.js';
import { Nullable } from '../schemas.js';

export const AccessEntry = T.Object({
  access_level: Nullable(T.Integer()),
  access_level_description: T.String(),
  user_id: Nullable(T.Integer()),
  group_id: Nullable(T.Integer()),
});

export const ProtectedBranch = T.Object({
  id: T.Integer(),
  name: T.String(),
  push_access_levels: T.Array(AccessEntry),
  merge_access_levels: T.Array(AccessEntry),
  allow_force_push: T.Boolean(),
  unprotect_access_levels: T.Array(AccessEntry),
  code_owner_approval_required: T.Boolean(),
});

export const Level = IntOneOf(ALLOWED_ACCESS_LEVELS);

/** One entry of allowed_to_push / _merge / _unprotect: a user, a group or a role. */
export const AccessRequest = T.Object({
  access_level: T.Optional(Level),
  user_id: T.Optional(T.Integer()),
  group_id: T.Optional(T.Integer()),
});
