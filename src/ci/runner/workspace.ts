// A job's working copy: a fresh checkout of one commit from the project's bare repository, in a
// directory of the job's own. `git clone` of a local path hardlinks the object files (copying
// them only when the two directories are on different file systems), so this is fast even for
// large repositories; the workspace keeps its `.git` so that scripts can run git.
import fs from 'node:fs/promises';
import path from 'node:path';
import { git, GitError, safeArg } from '../../git/git.js';

export interface WorkspaceSpec {
  /** The project's bare repository. */
  repoDir: string;
  /** The commit to check out (full hex object id). */
  sha: string;
  /** Where the working copy goes; anything already there is removed first. */
  dir: string;
  /**
   * What `origin` points at in the working copy (the reference sets CI_REPOSITORY_URL, which
   * carries the job token); null or absent removes `origin`, so the server's path is not left there.
   */
  remoteUrl?: string | null;
  /** `dir` exists, empty (a mount point the sandbox made): the checkout goes in it, it is not made anew. */
  keepDir?: boolean;
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Checks out `sha` into a new `dir` with a detached HEAD. Throws GitError when the commit is missing. */
export async function prepareWorkspace(spec: WorkspaceSpec): Promise<void> {
  if (!SHA.test(spec.sha)) throw new GitError(['checkout'], null, `not a commit id: ${spec.sha}`);
  const dir = path.resolve(spec.dir);
  if (!spec.keepDir) {
    await removeWorkspace(dir);
    await fs.mkdir(path.dirname(dir), { recursive: true });
  }
  await git(['clone', '--quiet', '--no-checkout', safeArg(path.resolve(spec.repoDir), 'repository'), dir]);
  await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', spec.sha], { cwd: dir });
  if (spec.remoteUrl) await git(['remote', 'set-url', 'origin', safeArg(spec.remoteUrl, 'remote URL')], { cwd: dir });
  else await git(['remote', 'remove', 'origin'], { cwd: dir });
}

/**
 * Removes a workspace and everything in it; no error when it does not exist. Directories a job
 * made read-only are made writable again first.
 */
export async function removeWorkspace(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EACCES' && (e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
    await makeWritable(dir);
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function makeWritable(dir: string): Promise<void> {
  await fs.chmod(dir, 0o700).catch(() => undefined);
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) if (e.isDirectory()) await makeWritable(path.join(dir, e.name));
}
