// Commit statuses → the reference's CommitStatus shape.
import type { Container } from '../../domain/context.js';
import type { CommitStatusView } from '../../domain/ci/commit_statuses.js';
import { presentUserBasic } from '../users/present.js';

export const presentCommitStatus = (c: Container, v: CommitStatusView) => ({
  id: v.row.id,
  sha: v.row.sha,
  ref: v.row.ref,
  status: v.row.status,
  name: v.row.name,
  target_url: v.row.target_url,
  description: v.row.description,
  created_at: v.row.created_at,
  started_at: v.row.started_at,
  finished_at: v.row.finished_at,
  allow_failure: v.row.allow_failure === 1,
  coverage: v.row.coverage,
  author: v.author ? presentUserBasic(c, v.author) : null,
});
