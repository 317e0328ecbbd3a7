// The repository tree API: the entries of a directory at a ref, optionally recursive, paged.
import type { Container } from '../context.js';
import { lastCommitsFor } from '../../git/log.js';
import { listTree as lsTree, readCommit, readCommitsBySha, type CommitInfo, type TreeEntry } from '../../git/objects.js';
import type { Actor } from '../auth/actor.js';
import { notFound } from '../errors.js';
import { COUNT_CAP, type PageRequest, type PageResult } from '../../shared/page.js';
import { readableRepository, type CommitView } from './commits.js';

export interface TreeInput {
  ref?: string;
  path?: string;
  recursive?: boolean;
}

const TYPE_ORDER: Record<TreeEntry['type'], number> = { tree: 0, blob: 1, commit: 2 };

/**
 * One page of a directory's entries. A directory lists trees first, then files, then submodules,
 * each by name (as the reference answers); a recursive listing keeps git's walk order.
 * An unknown ref or a path that is not a directory is 404 Tree Not Found.
 */
export async function listTree(c: Container, actor: Actor | null, idOrPath: number | string, input: TreeInput, page: PageRequest): Promise<PageResult<TreeEntry>> {
  const repo = await readableRepository(c, actor, idOrPath);
  const { entries } = await directory(repo.dir, input.ref || repo.row.default_branch || 'HEAD', input.path ?? '', input.recursive === true);
  const pageNo = page.kind === 'offset' ? page.page : 1;
  const start = (pageNo - 1) * page.perPage;
  return {
    items: entries.slice(start, start + page.perPage),
    total: entries.length > COUNT_CAP ? null : entries.length,
    hasNext: entries.length > start + page.perPage,
  };
}

/** A directory's entries at a ref and the commit the ref names; 404 Tree Not Found for neither. */
async function directory(dir: string, ref: string, path: string, recursive = false): Promise<{ commit: CommitInfo; entries: TreeEntry[] }> {
  const commit = await readCommit(dir, ref);
  if (!commit) throw notFound('Tree');
  const entries = await lsTree(dir, commit.id, path, recursive);
  if (!entries) throw notFound('Tree');
  if (!recursive) entries.sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { commit, entries };
}

/** Entries summarised per request, as the reference's tree view asks for them. */
const LOGS_TREE_LIMIT = 25;

export interface EntryLastCommit {
  entry: TreeEntry;
  /** Absent when no commit within the walk's bound touched it. */
  last?: CommitView;
}

/**
 * The last commit of each entry of a directory at a ref, for `LOGS_TREE_LIMIT` entries from
 * `offset` in the tree API's order (the reference's TreeSummary); `nextOffset` when more follow.
 * The same access and 404s as the tree API.
 */
export async function treeLastCommits(
  c: Container,
  actor: Actor | null,
  idOrPath: number | string,
  input: { ref: string; path: string; offset: number },
): Promise<{ items: EntryLastCommit[]; nextOffset: number | null }> {
  const repo = await readableRepository(c, actor, idOrPath);
  const { commit, entries } = await directory(repo.dir, input.ref, input.path);
  const offset = Math.max(0, input.offset);
  const slice = entries.slice(offset, offset + LOGS_TREE_LIMIT);
  const shas = await lastCommitsFor(repo.dir, commit.id, slice.map((e) => e.path));
  const commits = new Map((await readCommitsBySha(repo.dir, [...new Set(shas.values())])).map((m) => [m.id, m]));
  return {
    items: slice.map((entry) => {
      const m = commits.get(shas.get(entry.path) ?? '');
      return m ? { entry, last: { commit: m, project: repo.row } } : { entry };
    }),
    nextOffset: entries.length > offset + LOGS_TREE_LIMIT ? offset + LOGS_TREE_LIMIT : null,
  };
}
