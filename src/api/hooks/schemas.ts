// Schemas of system hooks and of the hook delivery log (shared with project hooks).
import { Type as T } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../schemas.js';

/** The spec's System hook; the token is never part of it. */
export const SystemHook = T.Object({
  id: T.Integer(),
  url: T.String(),
  created_at: Timestamp,
  push_events: T.Boolean(),
  tag_push_events: T.Boolean(),
  merge_requests_events: T.Boolean(),
  repository_update_events: T.Boolean(),
  enable_ssl_verification: T.Boolean(),
});

const OptionalBool = T.Optional(T.Boolean());
const SystemHookFlags = {
  token: T.Optional(T.String()),
  push_events: OptionalBool,
  tag_push_events: OptionalBool,
  merge_requests_events: OptionalBool,
  repository_update_events: OptionalBool,
  enable_ssl_verification: OptionalBool,
};

export const CreateSystemHookParams = { url: T.String(), ...SystemHookFlags };
export const UpdateSystemHookParams = { id: T.Integer(), url: T.Optional(T.String()), ...SystemHookFlags };

/** The reference's WebHookLog entity: one delivery attempt. */
export const HookLog = T.Object({
  id: T.Integer(),
  url: T.String(),
  trigger: T.String(),
  request_headers: T.Record(T.String(), T.String()),
  request_data: T.Any(),
  response_headers: T.Record(T.String(), T.String()),
  response_body: T.String(),
  execution_duration: T.Number(),
  response_status: T.String(),
  created_at: Timestamp,
});

/** The reference's RetryWebhookEvent entity (resend). */
export const ResendResult = T.Object({ response_status: Nullable(T.Integer()) });
