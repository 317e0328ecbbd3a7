// Rows → the System hook and WebHookLog shapes.
import type { Static } from '@sinclair/typebox';
import type { HookLogRow, SystemHookRow } from '../../db/repos/hooks.js';
import type { HookLog, SystemHook } from './schemas.js';

export const presentSystemHook = (h: SystemHookRow): Static<typeof SystemHook> => ({
  id: h.id,
  url: h.url,
  created_at: h.created_at,
  push_events: h.push_events === 1,
  tag_push_events: h.tag_push_events === 1,
  merge_requests_events: h.merge_requests_events === 1,
  repository_update_events: h.repository_update_events === 1,
  enable_ssl_verification: h.enable_ssl_verification === 1,
});

export const presentHookLog = (l: HookLogRow): Static<typeof HookLog> => ({
  id: l.id,
  url: l.url,
  trigger: l.trigger,
  request_headers: JSON.parse(l.request_headers),
  request_data: JSON.parse(l.request_data),
  response_headers: JSON.parse(l.response_headers),
  response_body: l.response_body,
  execution_duration: l.execution_duration,
  response_status: l.response_status,
  created_at: l.created_at,
});
