// THE place where ref changes are published, whatever moved the ref (push, commits API, files
// API, branch API): push events with push_data now; hook deliveries subscribe here later.
import type { Container } from '../../container.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import type { Actor } from '../auth/actor.js';
import { recordEvent } from '../events/service.js';
import type { RefUpdate } from './protection.js';
import { ZERO_SHA } from '../../git/repository.js';

export interface PublishedRefChange extends RefUpdate {
  commitCount: number;
  commitTitle: string | null;
}

export async function publishRefChanges(c: Container, actor: Actor, project: ProjectRow, changes: PublishedRefChange[]): Promise<void> {
  for (const ch of changes) {
    const isTag = ch.ref.startsWith('refs/tags/');
    const short = ch.ref.replace(/^refs\/(heads|tags)\//, '');
    await recordEvent(c, {
      action: 'pushed',
      authorId: actor.user.id,
      projectId: project.id,
      push: {
        commitCount: ch.commitCount,
        action: ch.oldSha === ZERO_SHA ? 'created' : ch.newSha === ZERO_SHA ? 'removed' : 'pushed',
        refType: isTag ? 'tag' : 'branch',
        commitFrom: ch.oldSha === ZERO_SHA ? null : ch.oldSha,
        commitTo: ch.newSha === ZERO_SHA ? null : ch.newSha,
        ref: short,
        commitTitle: ch.commitTitle,
      },
    });
  }
}
