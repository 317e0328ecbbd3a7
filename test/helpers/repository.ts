// Repository content for tests without a git client: commits written with plumbing straight into a
// project's bare repository, and an actor for calling domain functions directly.
import { findUserById } from '../../src/db/repos/users.js';
import type { Actor } from '../../src/domain/auth/actor.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import { git, gitText } from '../../src/git/git.js';
import { identityEnv } from '../../src/git/repository.js';
import type { TestApp } from './build.js';

/**
 * A commit whose tree is `files` (path → content; nested paths allowed) on top of `parent`
 * (null: a root commit) and any `merged` parents after it. Moves no ref. Returns its sha.
 */
export async function writeCommit(t: TestApp, projectId: number, parent: string | null, message: string, files: Record<string, string>, merged: string[] = []): Promise<string> {
  const dir = repositoryDir(t.c, projectId);
  // Build trees bottom-up from the paths.
  const writeTree = async (entries: Map<string, string | Map<string, any>>): Promise<string> => {
    let spec = '';
    for (const [name, v] of [...entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (typeof v === 'string') spec += `100644 blob ${await gitText(['hash-object', '-w', '--stdin'], { gitDir: dir, input: v })}\t${name}\n`;
      else spec += `040000 tree ${await writeTree(v)}\t${name}\n`;
    }
    return gitText(['mktree'], { gitDir: dir, input: spec });
  };
  const root = new Map<string, any>();
  for (const [p, content] of Object.entries(files)) {
    const parts = p.split('/');
    let node = root;
    for (const d of parts.slice(0, -1)) node = node.get(d) ?? node.set(d, new Map()).get(d);
    node.set(parts.at(-1)!, content);
  }
  const tree = await writeTree(root);
  const who = { name: 'Tester', email: 'tester@example.com' };
  const parents = [...(parent ? [parent] : []), ...merged].flatMap((p) => ['-p', p]);
  return gitText(['commit-tree', tree, ...parents, '-m', message], { gitDir: dir, env: identityEnv(who) });
}

/** Points a ref at a sha (ZERO-less: creates or moves it). */
export async function setRef(t: TestApp, projectId: number, ref: string, sha: string): Promise<void> {
  await git(['update-ref', ref, sha], { gitDir: repositoryDir(t.c, projectId) });
}

export async function deleteRef(t: TestApp, projectId: number, ref: string): Promise<void> {
  await git(['update-ref', '-d', ref], { gitDir: repositoryDir(t.c, projectId) });
}

export async function refSha(t: TestApp, projectId: number, ref: string): Promise<string> {
  return gitText(['rev-parse', ref], { gitDir: repositoryDir(t.c, projectId) });
}

/** The actor a personal token would give this user. */
export async function actorOf(t: TestApp, userId: number): Promise<Actor> {
  const user = await findUserById(t.c.db, userId);
  if (!user) throw new Error(`no user ${userId}`);
  return { user, via: 'personal_access_token', scopes: ['api'], tokenId: null, sudoer: null };
}

/** Jobs of a kind, oldest first, with parsed payloads. */
export async function jobsOf(t: TestApp, kind: string): Promise<{ state: string; payload: any }[]> {
  const rows = await t.c.db.selectFrom('background_jobs').select(['state', 'payload']).where('kind', '=', kind).orderBy('id').execute();
  return rows.map((r) => ({ state: r.state, payload: JSON.parse(r.payload) }));
}
