// Rows of project sub-resources → their API shapes.
import type { Static } from '@sinclair/typebox';
import type { ProjectGroupLinkRow } from '../../db/repos/project_group_links.js';
import type { ProjectHookRow } from '../../db/repos/project_hooks.js';
import { HOOK_EVENTS, type HookEvent } from '../../domain/projects/hooks.js';
import { alertStatus } from '../../domain/hooks/policy.js';
import type { ProjectGroupLink, ProjectHook } from './resources_schemas.js';
import { nowDate } from '../../shared/clock.js';

export const presentGroupLink = (l: ProjectGroupLinkRow): Static<typeof ProjectGroupLink> => ({
  id: l.id,
  project_id: l.project_id,
  group_id: l.group_id,
  group_access: l.group_access,
  expires_at: l.expires_at,
});

export function presentHook(h: ProjectHookRow): Static<typeof ProjectHook> {
  const flags = Object.fromEntries((Object.keys(HOOK_EVENTS) as HookEvent[]).map((k) => [k, h[k] === 1])) as Record<HookEvent, boolean>;
  return {
    id: h.id,
    url: h.url,
    created_at: h.created_at,
    project_id: h.project_id,
    ...flags,
    enable_ssl_verification: h.enable_ssl_verification === 1,
    push_events_branch_filter: h.push_events_branch_filter,
    alert_status: alertStatus(h, nowDate()),
    disabled_until: alertStatus(h, nowDate()) === 'temporarily_disabled' ? h.disabled_until : null,
  };
}
