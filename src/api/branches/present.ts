// Branch views → the API's Branch shape.
import type { Container } from '../../domain/context.js';
import type { BranchView } from '../../domain/branches/service.js';
import { withMillis } from '../../shared/time.js';
import type { CommitInfo } from '../../git/refs.js';

/** git's strict ISO time with the reference's milliseconds: 2026-01-02T03:04:05.000+01:00. */

/** A path segment-wise URL-encoded, keeping the slashes of `a/b` branch names. */
const encodePath = (p: string): string => p.split('/').map(encodeURIComponent).join('/');

export function presentCommit(c: Container, projectPath: string, k: CommitInfo) {
  return {
    id: k.id,
    short_id: k.id.slice(0, 8),
    created_at: withMillis(k.committedDate),
    parent_ids: k.parentIds,
    title: k.message.split('\n')[0],
    message: k.message,
    author_name: k.authorName,
    author_email: k.authorEmail,
    authored_date: withMillis(k.authoredDate),
    committer_name: k.committerName,
    committer_email: k.committerEmail,
    committed_date: withMillis(k.committedDate),
    trailers: {},
    web_url: `${c.config.externalUrl}/${projectPath}/-/commit/${k.id}`,
  };
}

export function presentBranch(c: Container, b: BranchView) {
  return {
    name: b.name,
    commit: presentCommit(c, b.project.full_path, b.commit),
    merged: b.merged,
    protected: b.protected,
    developers_can_push: b.developersCanPush,
    developers_can_merge: b.developersCanMerge,
    can_push: b.canPush,
    default: b.default,
    web_url: `${c.config.externalUrl}/${b.project.full_path}/-/tree/${encodePath(b.name)}`,
  };
}
