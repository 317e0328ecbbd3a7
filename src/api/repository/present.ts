// Commits and tree entries in the reference's shapes.
import type { Container } from '../../domain/context.js';
import type { CommitView } from '../../domain/repository/commits.js';
import { withMillis } from '../../shared/time.js';
import type { TagView } from '../../domain/repository/tags.js';
import type { CompareView } from '../../domain/repository/compare.js';
import type { TreeEntry } from '../../git/objects.js';
import type { FileDiff } from '../../git/commit_diff.js';
import type { BlameRun } from '../../git/blame.js';

/** git's strict ISO date with the reference's milliseconds: 2026-01-02T03:04:05.000+00:00. */

export function presentCommit(c: Container, v: CommitView) {
  const m = v.commit;
  return {
    id: m.id,
    short_id: m.id.slice(0, 8),
    created_at: withMillis(m.committedDate),
    parent_ids: m.parentIds,
    title: m.message.replace(/^\s+/, '').split('\n')[0].trimEnd(),
    message: m.message,
    author_name: m.authorName,
    author_email: m.authorEmail,
    authored_date: withMillis(m.authoredDate),
    committer_name: m.committerName,
    committer_email: m.committerEmail,
    committed_date: withMillis(m.committedDate),
    trailers: {},
    web_url: `${c.config.externalUrl}/${v.project.full_path}/-/commit/${m.id}`,
    ...(v.stats ? { stats: v.stats } : {}),
  };
}

/** CommitDetail: pipelines come in a later issue, so status and last_pipeline are null for now. */
export const presentCommitDetail = (c: Container, v: CommitView) => ({
  ...presentCommit(c, v),
  status: null,
  project_id: v.project.id,
  last_pipeline: null,
});

export const presentTreeEntry = (e: TreeEntry) => ({
  id: e.sha,
  name: e.path.split('/').pop()!,
  type: e.type,
  path: e.path,
  mode: e.mode,
});

export const presentDiff = (d: FileDiff) => ({
  diff: d.diff,
  new_path: d.newPath,
  old_path: d.oldPath,
  a_mode: d.aMode,
  b_mode: d.bMode,
  new_file: d.newFile,
  renamed_file: d.renamedFile,
  deleted_file: d.deletedFile,
});

export const presentTag = (c: Container, v: TagView) => ({
  name: v.tag.name,
  message: v.tag.message,
  target: v.tag.target,
  commit: v.tag.commit ? presentCommit(c, { commit: v.tag.commit, project: v.project }) : null,
  release: v.release ? { tag_name: v.release.tag, description: v.release.description } : null,
  protected: v.protected,
});

export const presentBlameRun = ({ commit: m, lines }: BlameRun) => ({
  commit: {
    id: m.id,
    parent_ids: m.parentIds,
    message: m.message,
    authored_date: withMillis(m.authoredDate),
    author_name: m.authorName,
    author_email: m.authorEmail,
    committed_date: withMillis(m.committedDate),
    committer_name: m.committerName,
    committer_email: m.committerEmail,
  },
  lines,
});

export function presentCompare(c: Container, v: CompareView) {
  const commits = v.commits.map((commit) => presentCommit(c, { commit, project: v.project }));
  return {
    commit: commits.at(-1) ?? null,
    commits,
    diffs: v.diffs.map(presentDiff),
    compare_timeout: false,
    compare_same_ref: v.sameRef,
    web_url: `${c.config.externalUrl}/${v.project.full_path}/-/compare/${v.from}...${v.to}`,
  };
}
