// Project hooks: the URLs a project's events go to (delivery comes with its own issue).
// Maintainers manage them; the secret token is stored encrypted and never shown again.
import type { Container } from '../context.js';
import {
  deleteProjectHook,
  findProjectHook,
  insertProjectHook,
  pageProjectHooks,
  updateProjectHook,
  type ProjectHookPatch,
  type ProjectHookRow,
} from '../../db/repos/project_hooks.js';
import type { Actor } from '../auth/actor.js';
import { exactError, forbidden, recordNotFound } from '../errors.js';
import { encryptSecret } from '../shared/encryption.js';
import type { PageRequest, PageResult } from '../shared/page.js';
import { nowIso } from '../shared/time.js';
import { canAdminProject } from './policy.js';
import { findProject } from './find.js';

/** The event switches a hook has, with the reference's defaults (push on, the rest off). */
export const HOOK_EVENTS = {
  push_events: true,
  tag_push_events: false,
  merge_requests_events: false,
  repository_update_events: false,
  issues_events: false,
  confidential_issues_events: false,
  note_events: false,
  confidential_note_events: false,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  job_events: false,
  releases_events: false,
} as const;

export type HookEvent = keyof typeof HOOK_EVENTS;

export type HookInput = { url: string; token?: string; push_events_branch_filter?: string; enable_ssl_verification?: boolean } & {
  [K in HookEvent]?: boolean;
};

async function maintainedProject(c: Container, actor: Actor, idOrPath: number | string) {
  const { row, access } = await findProject(c, actor, idOrPath);
  if (!canAdminProject(access)) throw forbidden();
  return row;
}

/** A hook that is not there answers as the reference's record lookup does. */

function checkUrl(url: string): void {
  let ok = false;
  try {
    const u = new URL(url);
    ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) throw exactError(422, { error: 'Invalid url given' });
}

/** The columns an input sets: given switches only (creation fills the rest from the defaults). */
function patchOf(c: Container, input: Partial<HookInput>): ProjectHookPatch {
  const patch: ProjectHookPatch = {};
  if (input.url !== undefined) patch.url = input.url;
  for (const k of Object.keys(HOOK_EVENTS) as HookEvent[]) if (input[k] !== undefined) patch[k] = input[k] ? 1 : 0;
  if (input.enable_ssl_verification !== undefined) patch.enable_ssl_verification = input.enable_ssl_verification ? 1 : 0;
  if (input.push_events_branch_filter !== undefined) patch.push_events_branch_filter = input.push_events_branch_filter || null;
  if (input.token !== undefined) patch.token_encrypted = input.token === '' ? null : encryptSecret(c.config.secretKey, input.token);
  return patch;
}

export async function listHooks(c: Container, actor: Actor, idOrPath: number | string, page: PageRequest): Promise<PageResult<ProjectHookRow>> {
  const project = await maintainedProject(c, actor, idOrPath);
  return pageProjectHooks(c.db, project.id, page);
}

export async function getHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number): Promise<ProjectHookRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await findProjectHook(c.db, project.id, hookId);
  if (!hook) throw recordNotFound();
  return hook;
}

export async function createHook(c: Container, actor: Actor, idOrPath: number | string, input: HookInput): Promise<ProjectHookRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  checkUrl(input.url);
  const now = nowIso();
  return insertProjectHook(c.db, { project_id: project.id, url: input.url, token_encrypted: null, ...patchOf(c, input), created_at: now, updated_at: now });
}

export async function updateHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number, input: HookInput): Promise<ProjectHookRow> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await findProjectHook(c.db, project.id, hookId);
  if (!hook) throw recordNotFound();
  checkUrl(input.url);
  return updateProjectHook(c.db, hook.id, { ...patchOf(c, input), updated_at: nowIso() });
}

export async function deleteHook(c: Container, actor: Actor, idOrPath: number | string, hookId: number): Promise<void> {
  const project = await maintainedProject(c, actor, idOrPath);
  const hook = await findProjectHook(c.db, project.id, hookId);
  if (!hook) throw recordNotFound();
  await deleteProjectHook(c.db, hook.id);
}
