// The Branch resource (spec "Branch"; the reference's Entities::Branch with its Entities::Commit).
import { Type as T } from '@sinclair/typebox';

/** Commit timestamps keep the committer's offset, as the reference shows them. */
const CommitTime = T.String();

export const BranchCommit = T.Object({
  id: T.String(),
  short_id: T.String(),
  created_at: CommitTime,
  parent_ids: T.Array(T.String()),
  title: T.String(),
  message: T.String(),
  author_name: T.String(),
  author_email: T.String(),
  authored_date: CommitTime,
  committer_name: T.String(),
  committer_email: T.String(),
  committed_date: CommitTime,
  trailers: T.Record(T.String(), T.String()),
  web_url: T.String(),
});

export const Branch = T.Object({
  name: T.String(),
  commit: BranchCommit,
  merged: T.Boolean(),
  protected: T.Boolean(),
  developers_can_push: T.Boolean(),
  developers_can_merge: T.Boolean(),
  can_push: T.Boolean(),
  default: T.Boolean(),
  web_url: T.String(),
});

export const Accepted = T.Object({ message: T.String() });

/** Branch name → its commits behind and ahead of the default branch. */
export const DivergingCounts = T.Record(T.String(), T.Object({ behind: T.Integer(), ahead: T.Integer() }));
