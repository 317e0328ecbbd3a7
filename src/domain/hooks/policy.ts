// Who may manage hooks, and when a project hook may run (the reference's auto-disabling):
// - system hooks and project aliases: administrators only (routes declare `admin`; the domain
//   checks again with requireAdmin so no other caller slips past);
// - project hooks, their log and resend: whoever may administer the project (canAdminProject);
// - a project hook that failed more than FAILURE_THRESHOLD times in a row is disabled for a
//   back-off that doubles from one minute up to a day; after PERMANENT_THRESHOLD failures it is
//   disabled for good. A success (a delivery or a test) makes it executable again.
import type { ProjectHookPatch, ProjectHookRow } from '../../db/repos/project_hooks.js';

export const FAILURE_THRESHOLD = 3;
export const PERMANENT_THRESHOLD = 39;
const INITIAL_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 24 * 3600_000;

export type AlertStatus = 'executable' | 'temporarily_disabled' | 'disabled';

type HookState = Pick<ProjectHookRow, 'recent_failures' | 'backoff_count' | 'disabled_until'>;

export function alertStatus(h: HookState, now: Date): AlertStatus {
  if (h.recent_failures > PERMANENT_THRESHOLD) return 'disabled';
  if (h.disabled_until !== null && h.disabled_until > now.toISOString()) return 'temporarily_disabled';
  return 'executable';
}

export const isExecutable = (h: HookState, now: Date): boolean => alertStatus(h, now) === 'executable';

/** The state after one more failure. */
export function failureState(h: HookState, now: Date): ProjectHookPatch {
  const failures = h.recent_failures + 1;
  if (failures > PERMANENT_THRESHOLD) return { recent_failures: failures, disabled_until: null };
  if (failures <= FAILURE_THRESHOLD) return { recent_failures: failures };
  const backoff = Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** h.backoff_count);
  return { recent_failures: failures, backoff_count: h.backoff_count + 1, disabled_until: new Date(now.getTime() + backoff).toISOString() };
}

/** The state after a success; null when nothing changes. */
export const successState = (h: HookState): ProjectHookPatch | null =>
  h.recent_failures === 0 && h.backoff_count === 0 && h.disabled_until === null ? null : { recent_failures: 0, backoff_count: 0, disabled_until: null };
