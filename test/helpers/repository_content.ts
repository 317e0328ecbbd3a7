// Content helpers for the commits, files and tree tests: a project with a repository, commits made
// through the API as a client would make them, and a member with a given role.
import type { TestApp } from './build.js';
import { addMember, makeProject } from './projects.js';

export async function makeRepoProject(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
  return makeProject(t, t.rootToken, { name: `repo${Math.random().toString(36).slice(2, 8)}`, initialize_with_readme: true, ...body });
}

/** Commits through the API (as root unless a token is given); fails loudly on anything but 201. */
export async function commit(t: TestApp, projectId: number, body: Record<string, unknown>, token = t.rootToken): Promise<any> {
  const r = await t.request('POST', `/api/v4/projects/${projectId}/repository/commits`, { token, body: { branch: 'main', commit_message: 'change', ...body } });
  if (r.status !== 201) throw new Error(`commit failed: ${r.status} ${r.text}`);
  return r.body;
}

/** A new user with the given role in the project. */
export async function memberWith(t: TestApp, projectId: number, level: number, scopes?: string[]) {
  const u = await t.createUser(scopes ? { scopes } : {});
  await addMember(t, 'Project', projectId, u.id, level);
  return u;
}
