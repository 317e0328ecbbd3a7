// Branch test helpers: commits written straight into a project's bare repository (plumbing, no
// working tree), so branch and protection tests can shape history quickly.
import { git, gitText } from '../../src/git/git.js';
import { repositoryDir } from '../../src/domain/repository/service.js';
import type { TestApp } from './build.js';

const ENV = {
  GIT_AUTHOR_NAME: 'Ada Author',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_AUTHOR_DATE: '1700000000 +0200',
  GIT_COMMITTER_NAME: 'Carl Committer',
  GIT_COMMITTER_EMAIL: 'carl@example.com',
  GIT_COMMITTER_DATE: '1700000100 +0200',
};

export const repoDir = (t: TestApp, projectId: number) => repositoryDir(t.c, projectId);

/** A commit with these files (the parent's tree plus them) on top of parent (or none); returns its sha. Moves no ref. */
export async function makeCommit(t: TestApp, projectId: number, files: Record<string, string>, message: string, parent: string | null): Promise<string> {
  const dir = repoDir(t, projectId);
  const entries = new Map<string, string>();
  if (parent) {
    const ls = await gitText(['ls-tree', '-r', parent], { gitDir: dir });
    for (const line of ls.split('\n').filter(Boolean)) {
      const [meta, path] = line.split('\t');
      entries.set(path, meta.split(' ')[2]);
    }
  }
  for (const [path, content] of Object.entries(files)) entries.set(path, await gitText(['hash-object', '-w', '--stdin'], { gitDir: dir, input: content }));
  // Build nested trees with mktree, deepest directories first.
  const build = async (prefix: string): Promise<string> => {
    const lines: string[] = [];
    const dirs = new Set<string>();
    for (const [path, sha] of entries) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      if (rest.includes('/')) dirs.add(rest.split('/')[0]);
      else lines.push(`100644 blob ${sha}\t${rest}`);
    }
    for (const d of dirs) lines.push(`040000 tree ${await build(`${prefix}${d}/`)}\t${d}`);
    return gitText(['mktree'], { gitDir: dir, input: lines.join('\n') + '\n' });
  };
  const tree = await build('');
  return gitText(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { gitDir: dir, env: ENV });
}

/** Points refs/heads/<branch> at sha (creating or moving it, no checks). */
export async function setBranch(t: TestApp, projectId: number, branch: string, sha: string): Promise<void> {
  await git(['update-ref', `refs/heads/${branch}`, sha], { gitDir: repoDir(t, projectId) });
}

/** A new commit on branch (created from `from` when it does not exist); returns its sha. */
export async function commitOn(t: TestApp, projectId: number, branch: string, files: Record<string, string>, message = `change on ${branch}`, from?: string): Promise<string> {
  const dir = repoDir(t, projectId);
  const tip = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { gitDir: dir, okCodes: [1] });
  let parent: string | null = tip.code === 0 ? tip.stdout.toString().trim() : null;
  if (!parent && from) parent = await gitText(['rev-parse', from], { gitDir: dir });
  const sha = await makeCommit(t, projectId, files, message, parent);
  await setBranch(t, projectId, branch, sha);
  return sha;
}

export async function branchTip(t: TestApp, projectId: number, branch: string): Promise<string | null> {
  const r = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { gitDir: repoDir(t, projectId), okCodes: [1] });
  return r.code === 0 ? r.stdout.toString().trim() : null;
}

export const BRANCH_KEYS = ['can_push', 'commit', 'default', 'developers_can_merge', 'developers_can_push', 'merged', 'name', 'protected', 'web_url'];
export const PROTECTED_BRANCH_KEYS = ['allow_force_push', 'code_owner_approval_required', 'id', 'merge_access_levels', 'name', 'push_access_levels', 'unprotect_access_levels'];
export const ACCESS_ENTRY_KEYS = ['access_level', 'access_level_description', 'group_id', 'user_id'];
