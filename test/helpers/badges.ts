// Badge test helpers.
import type { TestApp } from './build.js';
import { repoDir } from './branches.js';
import { git } from '../../src/git/git.js';

/** A lightweight tag made in the project's repository directly. */
export async function serverGitTag(t: TestApp, projectId: number, name: string, sha: string): Promise<void> {
  await git(['update-ref', `refs/tags/${name}`, sha], { gitDir: repoDir(t, projectId) });
}
