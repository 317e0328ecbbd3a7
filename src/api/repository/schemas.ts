// Response shapes of the commits, files and tree APIs (the reference's Commit, CommitDetail,
// TreeObject entities and its repository file hash).
import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';

const Stats = T.Object({ additions: T.Integer(), deletions: T.Integer(), total: T.Integer() });

const COMMIT_FIELDS = {
  id: T.String(),
  short_id: T.String(),
  created_at: T.String(),
  parent_ids: T.Array(T.String()),
  title: T.String(),
  message: T.String(),
  author_name: T.String(),
  author_email: T.String(),
  authored_date: T.String(),
  committer_name: T.String(),
  committer_email: T.String(),
  committed_date: T.String(),
  trailers: T.Record(T.String(), T.String()),
  web_url: T.String(),
};

/** A commit in a list; `stats` only with `with_stats=true`. */
export const Commit = T.Object({ ...COMMIT_FIELDS, stats: T.Optional(Stats) });

/** One commit; `stats` unless `stats=false`. */
export const CommitDetail = T.Object({
  ...COMMIT_FIELDS,
  stats: T.Optional(Stats),
  status: Nullable(T.String()),
  project_id: T.Integer(),
  last_pipeline: T.Null(),
});

export const TreeObject = T.Object({
  id: T.String(),
  name: T.String(),
  type: T.String(),
  path: T.String(),
  mode: T.String(),
});

export const RepositoryFile = T.Object({
  file_name: T.String(),
  file_path: T.String(),
  size: T.Integer(),
  encoding: T.String(),
  content_sha256: T.String(),
  ref: T.String(),
  blob_id: T.String(),
  commit_id: T.String(),
  last_commit_id: T.String(),
  execute_filemode: T.Boolean(),
  content: T.String(),
});

export const FileWriteResult = T.Object({ file_path: T.String(), branch: T.String() });

/** A changed file of a commit (the reference's Diff entity). */
export const Diff = T.Object({
  diff: T.String(),
  new_path: T.String(),
  old_path: T.String(),
  a_mode: T.String(),
  b_mode: T.String(),
  new_file: T.Boolean(),
  renamed_file: T.Boolean(),
  deleted_file: T.Boolean(),
});

/** A comparison of two refs (the reference's Compare entity): `commit` is the newest of `commits`, or null. */
export const Compare = T.Object({
  commit: Nullable(Commit),
  commits: T.Array(Commit),
  diffs: T.Array(Diff),
  compare_timeout: T.Boolean(),
  compare_same_ref: T.Boolean(),
  web_url: T.String(),
});

/** A tag (the reference's Tag entity) with its release's tag name and notes (TagRelease), or null. */
export const Tag = T.Object({
  name: T.String(),
  message: Nullable(T.String()),
  target: T.String(),
  commit: Nullable(Commit),
  release: Nullable(T.Object({ tag_name: T.String(), description: Nullable(T.String()) })),
  protected: T.Boolean(),
});

/** A run of lines that one commit last changed (`GET …/files/:file_path/blame`). */
export const BlameRange = T.Object({
  commit: T.Object({
    id: T.String(),
    parent_ids: T.Array(T.String()),
    message: T.String(),
    authored_date: T.String(),
    author_name: T.String(),
    author_email: T.String(),
    committed_date: T.String(),
    committer_name: T.String(),
    committer_email: T.String(),
  }),
  lines: T.Array(T.String()),
});

/** A blob by its sha (`GET …/repository/blobs/:sha`). */
export const Blob = T.Object({ size: T.Integer(), encoding: T.String(), content: T.String(), sha: T.String() });

export const Contributor = T.Object({ name: T.String(), email: T.String(), commits: T.Integer(), additions: T.Integer(), deletions: T.Integer() });

/** A branch or tag holding a commit (the reference's BasicRef). */
export const BasicRef = T.Object({ type: T.String(), name: T.String() });

export const Changelog = T.Object({ notes: T.String() });

/** A cherry-pick or revert asked with `dry_run=true` that would apply. */
export const DryRunSuccess = T.Object({ dry_run: T.String() });
