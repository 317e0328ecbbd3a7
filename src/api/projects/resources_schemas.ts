// Schemas of project sub-resources: uploads, group links, hooks, access tokens.
import { Type as T } from '@sinclair/typebox';
import { MEMBER_LEVELS } from '../../domain/members/policy.js';
import { HOOK_EVENTS } from '../../domain/projects/hooks.js';
import { IntOneOf } from '../groups/schemas.js';
import { DateOnly, IdOrPath, Nullable, OneOf, Timestamp } from '../schemas.js';

export const ProjectIdParam = { id: IdOrPath };

/** The reference's ProjectUpload result. */
export const ProjectUpload = T.Object({ alt: T.String(), url: T.String(), full_path: T.String(), markdown: T.String() });

/** The reference's ProjectGroupLink entity. */
export const ProjectGroupLink = T.Object({
  id: T.Integer(),
  project_id: T.Integer(),
  group_id: T.Integer(),
  group_access: T.Integer(),
  expires_at: Nullable(DateOnly),
});

export const ShareParams = {
  ...ProjectIdParam,
  group_id: T.Integer(),
  group_access: IntOneOf(MEMBER_LEVELS),
  expires_at: T.Optional(T.String()),
};

const eventFlags = Object.fromEntries(Object.keys(HOOK_EVENTS).map((k) => [k, T.Boolean()])) as Record<keyof typeof HOOK_EVENTS, ReturnType<typeof T.Boolean>>;

/** The reference's ProjectHook entity, with the failure state of the current reference; the token is never part of it. */
export const ProjectHook = T.Object({
  id: T.Integer(),
  url: T.String(),
  created_at: Timestamp,
  project_id: T.Integer(),
  ...eventFlags,
  enable_ssl_verification: T.Boolean(),
  push_events_branch_filter: Nullable(T.String()),
  alert_status: OneOf(['executable', 'temporarily_disabled', 'disabled']),
  disabled_until: Nullable(Timestamp),
});

const OptionalBool = T.Optional(T.Boolean());

export const HookParams = {
  ...ProjectIdParam,
  url: T.String(),
  token: T.Optional(T.String()),
  push_events_branch_filter: T.Optional(T.String()),
  enable_ssl_verification: T.Optional(T.Boolean()),
  ...(Object.fromEntries(Object.keys(HOOK_EVENTS).map((k) => [k, T.Optional(T.Boolean())])) as Record<keyof typeof HOOK_EVENTS, typeof OptionalBool>),
};
