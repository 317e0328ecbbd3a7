// The background jobs of projects, registered on every node's queue when its container is built.
import type { Container } from '../../container.js';
import { FORK_REPOSITORY_JOB, runForkRepository } from './forks.js';
import { PROJECT_DESTROY_JOB, runProjectDestroy } from './lifecycle.js';

export function registerProjectJobs(c: Container): void {
  c.queue.register(PROJECT_DESTROY_JOB, (payload: { projectId: number }) => runProjectDestroy(c, payload));
  c.queue.register(FORK_REPOSITORY_JOB, (payload: { projectId: number }) => runForkRepository(c, payload));
}
