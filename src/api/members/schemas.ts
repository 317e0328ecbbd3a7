import { Type as T } from '@sinclair/typebox';
import { MEMBER_LEVELS } from '../../domain/members/policy.js';
import { IntOneOf } from '../groups/schemas.js';
import { CommaList, DateOnly, IdOrPath, Nullable } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

/** The reference's Member entity: the user (UserBasic) merged with the membership. */
export const Member = T.Object({
  ...UserBasic.properties,
  access_level: T.Integer(),
  created_at: T.String({ format: 'date-time' }),
  created_by: T.Optional(UserBasic),
  expires_at: Nullable(DateOnly),
  membership_state: T.String(),
});

export const SourceIdParam = { id: IdOrPath };

export const ListMembersParams = {
  ...SourceIdParam,
  query: T.Optional(T.String()),
  user_ids: T.Optional(CommaList(T.Integer())),
  skip_users: T.Optional(CommaList(T.Integer({ format: 'int32' }))),
  show_seat_info: T.Optional(T.Boolean()),
};

export const MemberParams = { ...SourceIdParam, user_id: T.Integer() };

export const AddMemberParams = {
  ...SourceIdParam,
  user_id: T.Integer(),
  access_level: IntOneOf(MEMBER_LEVELS),
  expires_at: T.Optional(T.String()),
  invite_source: T.Optional(T.String()),
  tasks_to_be_done: T.Optional(T.Array(T.String())),
  tasks_project_id: T.Optional(T.Integer()),
};

export const UpdateMemberParams = {
  ...MemberParams,
  access_level: IntOneOf(MEMBER_LEVELS),
  expires_at: T.Optional(T.String()),
};
