// Every project owns one bare repository, stored by project id so renames and transfers touch only
// the database. Created with the project, removed with it.
import path from 'node:path';
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { UserRow } from '../../db/repos/users.js';
import { closeGitProcesses } from '../../git/long_lived.js';
import { commitSingleFile, copyBare, initBare, removeRepository } from '../../git/repository.js';

export function repositoryDir(c: Container, projectId: number): string {
  return path.join(c.config.dataDir, 'repositories', `${projectId}.git`);
}

/** The bare repository of a new project; with `initialize_with_readme`, a first commit on the default branch. */
export async function createProjectRepository(c: Container, project: ProjectRow, creator: UserRow): Promise<void> {
  const dir = repositoryDir(c, project.id);
  const branch = project.default_branch ?? 'main';
  await initBare(dir, branch);
  if (project.initialize_with_readme) {
    await commitSingleFile(
      dir,
      branch,
      { path: 'README.md', content: `# ${project.name}\n\n${project.description ?? ''}${project.description ? '\n' : ''}` },
      'Initial commit',
      { name: creator.name, email: creator.commit_email || creator.email },
    );
  }
}

/** A fork's repository: a copy of the source's refs and objects. */
export async function copyProjectRepository(c: Container, fromProjectId: number, toProjectId: number): Promise<void> {
  const to = repositoryDir(c, toProjectId);
  removeRepository(to); // a retried job starts over
  await copyBare(repositoryDir(c, fromProjectId), to);
}

export function removeProjectRepository(c: Container, projectId: number): void {
  removeRepository(repositoryDir(c, projectId));
}

/** Stops the git processes kept for reading this node's repositories (the server is closing). */
export function closeRepositoryReaders(c: Container): void {
  closeGitProcesses(path.join(c.config.dataDir, 'repositories'));
}
