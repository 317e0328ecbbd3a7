// Project test helpers: groups and memberships straight in the database (the groups API has its
// own tests), projects through the API as a client would create them.
import { insertNamespace } from '../../src/db/repos/namespaces.js';
import { nowIso } from '../../src/shared/time.js';
import type { TestApp } from './build.js';

export async function makeGroup(
  t: TestApp,
  path: string,
  opts: { visibility?: number; parentId?: number; parentPath?: string; creationLevel?: string } = {},
): Promise<{ id: number; full_path: string }> {
  const now = nowIso();
  const full = opts.parentPath ? `${opts.parentPath}/${path}` : path;
  const ns = await insertNamespace(t.c.db, {
    kind: 'group',
    name: path,
    path,
    full_path: full,
    full_path_lower: full.toLowerCase(),
    parent_id: opts.parentId ?? null,
    visibility_level: opts.visibility ?? 0,
    project_creation_level: opts.creationLevel ?? 'developer',
    created_at: now,
    updated_at: now,
  });
  return { id: ns.id, full_path: ns.full_path };
}

export async function addMember(t: TestApp, type: 'Namespace' | 'Project', sourceId: number, userId: number, level: number): Promise<void> {
  const now = nowIso();
  await t.c.db
    .insertInto('members')
    .values({ source_type: type, source_id: sourceId, user_id: userId, access_level: level, expires_at: null, created_by_id: null, created_at: now, updated_at: now })
    .execute();
}

/** Creates a project through the API and returns its body (fails loudly otherwise). */
export async function makeProject(t: TestApp, token: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.request('POST', '/api/v4/projects', { token, body });
  if (r.status !== 201) throw new Error(`project create failed: ${r.status} ${r.text}`);
  return r.body;
}
