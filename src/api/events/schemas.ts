import { Type as T } from '@sinclair/typebox';
import { EVENT_ACTIONS, TARGET_TYPE_NAMES } from '../../domain/events/service.js';
import { Nullable, OneOf, Timestamp } from '../schemas.js';
import { UserBasic } from '../users/schemas.js';

/** The spec's push_data. */
export const PushData = T.Object({
  commit_count: T.Integer(),
  action: T.String(),
  ref_type: T.String(),
  commit_from: Nullable(T.String()),
  commit_to: Nullable(T.String()),
  ref: Nullable(T.String()),
  commit_title: Nullable(T.String()),
});

/** The spec's Event (no notes or wiki pages yet: `note` is absent until notes exist). */
export const Event = T.Object({
  id: T.Integer(),
  title: T.Null(),
  project_id: Nullable(T.Integer()),
  action_name: T.String(),
  target_id: Nullable(T.Integer()),
  target_iid: Nullable(T.Integer()),
  target_type: Nullable(T.String()),
  author_id: T.Integer(),
  target_title: Nullable(T.String()),
  created_at: Timestamp,
  author: T.Optional(UserBasic),
  push_data: T.Optional(PushData),
  author_username: Nullable(T.String()),
});

/** Filters every events list takes. `action` is not checked: an unknown one filters nothing, as in the reference. */
export const EVENT_FILTER_PARAMS = {
  action: T.Optional(T.String({ examples: [...EVENT_ACTIONS] })),
  target_type: T.Optional(OneOf(TARGET_TYPE_NAMES)),
  before: T.Optional(T.String()),
  after: T.Optional(T.String()),
  sort: T.Optional(OneOf(['asc', 'desc'] as const, { default: 'desc' })),
};
