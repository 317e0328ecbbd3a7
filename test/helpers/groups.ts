// Group helpers for tests: create groups and memberships through the API, as a client would.
import assert from 'node:assert/strict';
import type { TestApp } from './build.js';

let seq = 0;

export async function makeGroup(
  t: TestApp,
  opts: { token?: string; visibility?: 'private' | 'internal' | 'public'; parent_id?: number; path?: string; name?: string } = {},
): Promise<{ id: number; full_path: string; path: string; name: string }> {
  seq += 1;
  const path = opts.path ?? `g${seq}-${Math.random().toString(36).slice(2, 7)}`;
  const r = await t.request('POST', '/api/v4/groups', {
    token: opts.token,
    body: { name: opts.name ?? `Group ${path}`, path, visibility: opts.visibility ?? 'private', ...(opts.parent_id ? { parent_id: opts.parent_id } : {}) },
  });
  assert.equal(r.status, 201, r.text);
  return r.body;
}

export async function addMember(t: TestApp, groupId: number, userId: number, accessLevel: number, token?: string): Promise<void> {
  const r = await t.request('POST', `/api/v4/groups/${groupId}/members`, { token, body: { user_id: userId, access_level: accessLevel } });
  assert.equal(r.status, 201, r.text);
}

export const GROUP_KEYS = [
  'id', 'web_url', 'name', 'path', 'description', 'visibility', 'share_with_group_lock', 'require_two_factor_authentication',
  'two_factor_grace_period', 'project_creation_level', 'auto_devops_enabled', 'subgroup_creation_level', 'emails_disabled',
  'mentions_disabled', 'lfs_enabled', 'default_branch_protection', 'avatar_url', 'request_access_enabled', 'full_name',
  'full_path', 'created_at', 'parent_id',
].sort();

export const MEMBER_KEYS = ['id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'access_level', 'created_at', 'created_by', 'expires_at', 'membership_state'].sort();
